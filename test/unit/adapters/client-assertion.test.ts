// The client assertion our provider adds to a token request, verified with node:crypto
// (the SDK's server-side auth has no private_key_jwt; the conformance scenario covers the whole flow).

import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { privateKeyJwtAuth } from '../../../src/adapters/mcp/auth/client-assertion.ts';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const issuer = 'https://auth.example.com';
const tokenUrl = new URL(`${issuer}/token`);

function decode(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

describe('privateKeyJwtAuth', () => {
  it('signs an ES256 assertion for the client, addressed to the issuer', async () => {
    const add = privateKeyJwtAuth({
      grantType: 'client_credentials',
      clientId: 'machine-1',
      privateKey: pem.replaceAll('\n', '\\n'),
      signingAlgorithm: 'ES256',
    });
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    await add?.(new Headers(), params, tokenUrl, { issuer } as never);
    expect(params.get('client_assertion_type')).toBe(
      'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    );
    const [header, payload, signature] = (params.get('client_assertion') ?? '').split('.');
    expect(decode(header ?? '')).toMatchObject({ alg: 'ES256' });
    const claims = decode(payload ?? '');
    expect(claims).toMatchObject({ iss: 'machine-1', sub: 'machine-1', aud: issuer });
    const signed = Buffer.from(`${header}.${payload}`);
    const ok = verify(
      'sha256',
      signed,
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature ?? '', 'base64url'),
    );
    expect(ok).toBe(true);
  });

  it('is absent without a private key, and a missing key file is a clear error', async () => {
    expect(privateKeyJwtAuth({ grantType: 'client_credentials', clientId: 'c', clientSecret: 's' })).toBe(
      undefined,
    );
    const add = privateKeyJwtAuth({
      grantType: 'client_credentials',
      clientId: 'c',
      privateKeyFile: '/nonexistent/key.pem',
    });
    await expect(add?.(new Headers(), new URLSearchParams(), tokenUrl, undefined)).rejects.toThrow(
      'oauth.privateKeyFile /nonexistent/key.pem cannot be read (ENOENT)',
    );
  });
});
