// DPoP (`oauth.dpop`, RFC 9449): the sign-in's key pair lives in the sign-in store, so a connection in
// another process signs with the key its tokens are bound to; proofs verify against the key's
// thumbprint; "required" refuses a Bearer token. The whole flow against real servers is the
// conformance suite's auth/dpop and auth/dpop-nonce (scripts/conformance.mjs).

import { createHash, verify, webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreOAuthProvider } from '../../../src/adapters/mcp/auth/provider.ts';
import { createTokenStore, type TokenStore } from '../../../src/auth/token-store.ts';
import type { OAuthConfig } from '../../../src/config/types.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { definition } from '../../support/config.ts';

let dir: string;
let store: TokenStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dpop-'));
  store = createTokenStore({ agentDir: dir, piAuthFile: false });
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function provider(oauth: Partial<OAuthConfig>, s: TokenStore = store) {
  const def = definition({
    name: 'dpop',
    transport: 'http',
    url: 'https://mcp.example.com/mcp',
    auth: 'oauth',
    oauth: { grantType: 'authorization_code', ...oauth },
  });
  return new StoreOAuthProvider(def, s);
}

function decode(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

describe('oauth.dpop', () => {
  it('keeps one key per sign-in in the store: another process signs with the same key', async () => {
    const first = await provider({ dpop: 'required' }).dpop();
    const other = createTokenStore({ agentDir: dir, piAuthFile: false });
    const second = await provider({ dpop: 'required' }, other).dpop();
    expect(first?.thumbprint).toBeTruthy();
    expect(second?.thumbprint).toBe(first?.thumbprint);
  });

  it('signs a fresh proof per request, bound to method, URL, token and the thumbprint', async () => {
    const session = await provider({ dpop: 'required' }).dpop();
    const url = 'https://mcp.example.com/mcp?x=1';
    const proofs = await Promise.all(
      [1, 2].map(() => session!.buildProof({ htm: 'post', htu: url, accessToken: 'tok' })),
    );
    const [header, payload, signature] = proofs[0]!.split('.');
    const head = decode(header!) as { typ: string; alg: string; jwk: Record<string, string> };
    const claims = decode(payload!);
    expect(head).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256' });
    expect(claims).toMatchObject({
      htm: 'POST',
      htu: 'https://mcp.example.com/mcp',
      ath: createHash('sha256').update('tok').digest('base64url'),
    });
    expect(decode(proofs[1]!.split('.')[1]!).jti).not.toBe(claims.jti);
    const { crv, kty, x, y } = head.jwk;
    expect(createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url')).toBe(
      session!.thumbprint,
    );
    const key = await webcrypto.subtle.importKey(
      'jwk',
      head.jwk,
      { name: 'ECDSA', namedCurve: 'P-256' },
      true,
      ['verify'],
    );
    const ok = verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      { key: await keyObject(key), dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature!, 'base64url'),
    );
    expect(ok).toBe(true);
  });

  it('with true, sends Bearer until the authorization server advertises DPoP; off by default', async () => {
    expect(await provider({ dpop: true }).dpop()).toBeUndefined();
    expect(await provider({}).dpop()).toBeUndefined();
    const p = provider({ dpop: true });
    await p.saveDiscoveryState({
      authorizationServerUrl: 'https://auth.example.com',
      authorizationServerMetadata: {
        issuer: 'https://auth.example.com',
        authorization_endpoint: 'https://auth.example.com/authorize',
        token_endpoint: 'https://auth.example.com/token',
        response_types_supported: ['code'],
        dpop_signing_alg_values_supported: ['ES256'],
      } as never,
    });
    expect((await p.dpop())?.alg).toBe('ES256');
  });

  it('"required" refuses a Bearer token', async () => {
    await expect(
      provider({ dpop: 'required' }).saveTokens({ access_token: 'bearer-token', token_type: 'Bearer' }),
    ).rejects.toThrow(/not a DPoP-bound one, and oauth.dpop is "required"/);
    expect(store.get('dpop', 'https://mcp.example.com/mcp')?.tokens).toBeUndefined();
  });

  it('the private key is a secret of the store: redacted like the tokens', async () => {
    const secrets = new SecretValues();
    store.shareSecrets(secrets);
    await provider({ dpop: 'required' }).dpop();
    const file = JSON.parse(readFileSync(store.file, 'utf8')) as {
      servers: Record<string, { dpopKey: { privateJwk: { d: string } } }>;
    };
    const d = Object.values(file.servers)[0]!.dpopKey.privateJwk.d;
    expect(d.length).toBeGreaterThan(20);
    expect(secrets.redact(`key ${d}`)).not.toContain(d);
  });
});

async function keyObject(key: webcrypto.CryptoKey) {
  const { KeyObject } = await import('node:crypto');
  return KeyObject.from(key);
}
