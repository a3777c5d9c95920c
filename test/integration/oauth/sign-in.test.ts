// Sign-in, calls, refresh, revocation, step-up and shared sign-ins against the OAuth fixture (the SDK's
// server-side auth on 127.0.0.1), through the real connector, server actor and sign-in flow.

import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { signInServer } from '../../../src/adapters/mcp/auth/sign-in.ts';
import { createMcpConnector } from '../../../src/adapters/mcp/index.ts';
import { createTokenStore, type TokenStore } from '../../../src/auth/token-store.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import {
  authorizationRedirect,
  followAuthorization,
  type OAuthFixture,
  startOAuthFixture,
} from '../../fixtures/oauth/start.ts';
import { definition } from '../../support/config.ts';

let dir: string;
let store: TokenStore;
const fixtures: OAuthFixture[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauth-'));
  store = createTokenStore({ agentDir: dir });
});

afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((f) => f.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function fixture(flags: string[] = []): Promise<OAuthFixture> {
  const f = await startOAuthFixture(flags);
  fixtures.push(f);
  return f;
}

function server(f: OAuthFixture, overrides: Partial<ServerDefinition> = {}): ServerDefinition {
  return definition({
    name: 'linear',
    transport: 'http',
    url: f.url,
    auth: 'oauth',
    oauth: { grantType: 'authorization_code' },
    ...overrides,
  });
}

/** Signs in, playing the browser: follows the URL the flow shows. */
async function signIn(def: ServerDefinition, s: TokenStore = store) {
  let shown = '';
  const browser = new AbortController();
  const result = await signInServer(
    def,
    s,
    {
      showUrl: (url) => {
        shown = url;
        followAuthorization(url).catch(() => browser.abort());
      },
      signal: browser.signal,
    },
    { env: { PI_MCP_NO_BROWSER: '1' } },
  );
  return { ...result, shown };
}

describe('OAuth sign-in against the SDK auth fixture', () => {
  it('signs in with dynamic client registration, PKCE, resource and scope, then calls a tool', async () => {
    const f = await fixture();
    const def = server(f);
    const connect = createMcpConnector({ tokenStore: store });
    await expect(connect(def, { signal: new AbortController().signal })).rejects.toMatchObject({
      kind: 'auth',
      message: expect.stringContaining('run /mcp-auth linear'),
    });
    const result = await signIn(def);
    expect(result).toMatchObject({ ok: true, message: 'linear: signed in.' });
    const url = new URL(result.shown);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(f.url);
    expect(url.searchParams.get('scope')).toBe('mcp');
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    const connection = await connect(def, { signal: new AbortController().signal });
    try {
      const answer = await connection.callTool('whoami', {});
      expect(answer.content[0]).toMatchObject({
        type: 'text',
        text: expect.stringMatching(/^client dcr-\w+ scopes mcp$/),
      });
    } finally {
      await connection.close();
    }
    expect(await f.stats()).toMatchObject({ registrations: 1, codeExchanges: 1 });
  });

  it('uses a pasted redirect URL when no browser reaches the loopback', async () => {
    const f = await fixture();
    const def = server(f);
    let pasted: (text: string) => void = () => {};
    const result = await signInServer(def, store, {
      showUrl: (url) => void authorizationRedirect(url).then((location) => pasted(location)),
      pasteRedirectUrl: () =>
        new Promise((resolve) => {
          pasted = resolve;
        }),
    });
    expect(result.ok).toBe(true);
    expect(store.get('linear', f.url)?.tokens?.access_token).toMatch(/^at-/);
  });

  it('refreshes an expiring access token silently and keeps calling', async () => {
    const f = await fixture(['--token-ttl', '2', '--rotate']);
    const def = server(f);
    expect((await signIn(def)).ok).toBe(true);
    const first = store.get('linear', f.url)!.tokens!;
    // Time passes: the access token is about to expire.
    await store.update('linear', f.url, (record) => ({ ...record!, tokensExpireAt: Date.now() + 500 }));
    const connection = await createMcpConnector({ tokenStore: store })(def, {
      signal: new AbortController().signal,
    });
    try {
      // Within the refresh margin (half of the 2 s life): the next request refreshes first.
      const answer = await connection.callTool('echo', { text: 'still here' });
      expect(answer.content[0]).toMatchObject({ text: 'still here' });
      const now = store.get('linear', f.url)!.tokens!;
      expect(now.access_token).not.toBe(first.access_token);
      expect(now.refresh_token).not.toBe(first.refresh_token);
      expect((await f.stats()).refreshes).toBeGreaterThanOrEqual(1);
    } finally {
      await connection.close();
    }
  });

  it('a 401 on a live connection refreshes once and the call goes through', async () => {
    const f = await fixture();
    const def = server(f);
    expect((await signIn(def)).ok).toBe(true);
    const connection = await createMcpConnector({ tokenStore: store })(def, {
      signal: new AbortController().signal,
    });
    try {
      await f.admin('expire-access');
      expect((await connection.callTool('echo', { text: 'after 401' })).content[0]).toMatchObject({
        text: 'after 401',
      });
      expect((await f.stats()).refreshes).toBe(1);
    } finally {
      await connection.close();
    }
  });

  it('a refused refresh token parks the server in needs-auth with the right message', async () => {
    const f = await fixture(['--token-ttl', '2']);
    const def = server(f);
    expect((await signIn(def)).ok).toBe(true);
    await f.admin('revoke-refresh');
    await f.admin('expire-access');
    await expect(
      createMcpConnector({ tokenStore: store })(def, { signal: new AbortController().signal }),
    ).rejects.toMatchObject({
      kind: 'auth',
      message: expect.stringContaining('the authorization server refused the refresh token: sign in again'),
    });
    expect(store.get('linear', f.url)?.tokens).toBeUndefined();
  });

  it('step-up: 403 insufficient_scope names the scope; signing in again grants it', async () => {
    const f = await fixture();
    const def = server(f);
    expect((await signIn(def)).ok).toBe(true);
    const connect = createMcpConnector({ tokenStore: store });
    const connection = await connect(def, { signal: new AbortController().signal });
    try {
      await expect(connection.callTool('admin_report', {})).rejects.toMatchObject({
        message: expect.stringContaining('needs scope "admin"'),
      });
    } finally {
      await connection.close();
    }
    const again = await signIn(def);
    expect(again.ok).toBe(true);
    expect(new URL(again.shown).searchParams.get('scope')).toBe('mcp admin');
    const upgraded = await connect(def, { signal: new AbortController().signal });
    try {
      expect((await upgraded.callTool('admin_report', {})).content[0]).toMatchObject({
        text: 'admin report: all good',
      });
    } finally {
      await upgraded.close();
    }
  });

  it('a server that lets anyone initialize: the sign-in asks for the scope its first refused request names', async () => {
    const f = await fixture(['--open-initialize']);
    const def = server(f);
    const signedIn = await signIn(def);
    expect(signedIn.ok).toBe(true);
    // The challenge of tools/list names "mcp"; the metadata would offer "mcp admin".
    expect(new URL(signedIn.shown).searchParams.get('scope')).toBe('mcp');
    const connection = await createMcpConnector({ tokenStore: store })(def, {
      signal: new AbortController().signal,
    });
    try {
      expect((await connection.callTool('whoami', {})).content[0]).toMatchObject({
        text: expect.stringMatching(/ scopes mcp$/),
      });
    } finally {
      await connection.close();
    }
  });

  it('pre-registered client with client_secret_basic, issuer with a path, no DCR', async () => {
    const f = await fixture([
      '--no-dcr',
      '--client',
      'my-app:s3cret-value',
      '--auth-method',
      'client_secret_basic',
      '--issuer-path',
      '/tenant1',
    ]);
    const def = server(f, {
      oauth: { grantType: 'authorization_code', clientId: 'my-app', clientSecret: 's3cret-value' },
    });
    const result = await signIn(def);
    expect(result).toMatchObject({ ok: true });
    expect(new URL(result.shown).searchParams.get('client_id')).toBe('my-app');
    const connection = await createMcpConnector({ tokenStore: store })(def, {
      signal: new AbortController().signal,
    });
    try {
      expect((await connection.callTool('whoami', {})).content[0]).toMatchObject({
        text: 'client my-app scopes mcp',
      });
    } finally {
      await connection.close();
    }
  });

  it('oauth.authServerMetadataUrl names metadata that discovery cannot find', async () => {
    const f = await fixture(['--hidden-as-metadata']);
    const discovered = await signIn(server(f));
    expect(discovered.ok).toBe(false);
    const def = server(f, {
      oauth: { grantType: 'authorization_code', authServerMetadataUrl: `${f.origin}/custom/as-metadata` },
    });
    const result = await signIn(def);
    expect(result).toMatchObject({ ok: true, message: 'linear: signed in.' });
    const connection = await createMcpConnector({ tokenStore: store })(def, {
      signal: new AbortController().signal,
    });
    await connection.close();
  });

  it('client ID metadata document when the server supports it', async () => {
    const f = await fixture(['--cimd', '--no-dcr']);
    const cimd = 'https://client.example.com/pi-mcp-actors.json';
    const def = server(f, { oauth: { grantType: 'authorization_code', clientMetadataUrl: cimd } });
    const result = await signIn(def);
    expect(result.ok).toBe(true);
    expect(new URL(result.shown).searchParams.get('client_id')).toBe(cimd);
  });

  it('refuses a redirect whose iss names another issuer (RFC 9207)', async () => {
    const f = await fixture(['--wrong-iss']);
    const result = await signIn(server(f));
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('RFC 9207') });
    expect(store.get('linear', f.url)?.tokens).toBeUndefined();
  });

  it('checks iss on a second sign-in too, when discovery is restored from the store (RFC 9207)', async () => {
    const f = await fixture();
    const def = server(f);
    expect((await signIn(def)).ok).toBe(true);
    const first = store.get('linear', f.url)!.tokens!.access_token;
    expect(store.get('linear', f.url)?.discovery).toBeDefined();
    await f.admin('wrong-iss');
    const wrong = await signIn(def);
    expect(wrong).toMatchObject({ ok: false, message: expect.stringContaining('RFC 9207') });
    // The metadata promises iss in every redirect: one without it is refused as well.
    await f.admin('no-iss');
    const none = await signIn(def);
    expect(none).toMatchObject({ ok: false, message: expect.stringContaining('lacks the iss parameter') });
    expect(store.get('linear', f.url)!.tokens!.access_token).toBe(first);
    expect((await f.stats()).codeExchanges).toBe(1);
  });

  it('the "sign in again" after a refused refresh checks iss as well', async () => {
    const f = await fixture(['--token-ttl', '2']);
    const def = server(f);
    expect((await signIn(def)).ok).toBe(true);
    await f.admin('revoke-refresh');
    await f.admin('expire-access');
    await expect(
      createMcpConnector({ tokenStore: store })(def, { signal: new AbortController().signal }),
    ).rejects.toMatchObject({ kind: 'auth', message: expect.stringContaining('refused the refresh token') });
    await f.admin('wrong-iss');
    const again = await signIn(def);
    expect(again).toMatchObject({ ok: false, message: expect.stringContaining('RFC 9207') });
    expect(store.get('linear', f.url)?.tokens).toBeUndefined();
    expect((await f.stats()).codeExchanges).toBe(1);
  });

  it('a callback with the wrong state gets an error page and the sign-in waits for the right one', async () => {
    const f = await fixture();
    const pages: Array<{ status: number; text: string }> = [];
    const browser = async (url: string) => {
      const location = new URL(await authorizationRedirect(url));
      const forged = new URL(location);
      forged.searchParams.set('state', 'not-this-sign-in');
      forged.searchParams.set('code', 'code-of-the-attacker');
      for (const target of [forged, location]) {
        const response = await fetch(target);
        pages.push({ status: response.status, text: await response.text() });
      }
    };
    const result = await signInServer(
      server(f),
      store,
      { showUrl: (url) => void browser(url) },
      {
        env: { PI_MCP_NO_BROWSER: '1' },
      },
    );
    expect(result).toMatchObject({ ok: true, message: 'linear: signed in.' });
    await vi.waitFor(() => expect(pages).toHaveLength(2));
    expect(pages[0]!.status).toBe(400);
    expect(pages[0]!.text).not.toContain('Signed in');
    expect(pages[0]!.text).toContain('does not belong to the sign-in in progress');
    expect(pages[1]).toMatchObject({ status: 200, text: expect.stringContaining('Signed in') });
    expect((await f.stats()).codeExchanges).toBe(1);
  });

  it('the browser page of a refused redirect (wrong iss) says the sign-in failed, not "Signed in"', async () => {
    const f = await fixture(['--wrong-iss']);
    let page: { status: number; text: string } | undefined;
    const result = await signInServer(
      server(f),
      store,
      {
        showUrl: (url) =>
          void authorizationRedirect(url).then(async (location) => {
            const response = await fetch(location);
            page = { status: response.status, text: await response.text() };
          }),
      },
      { env: { PI_MCP_NO_BROWSER: '1' } },
    );
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('RFC 9207') });
    await vi.waitFor(() => expect(page).toBeDefined());
    expect(page!.status).toBe(400);
    expect(page!.text).toContain('Sign-in failed');
    expect(page!.text).not.toContain('Signed in');
  });

  it("uses tokens from Pi's built-in mcp-auth.json and refreshes them into our store", async () => {
    const f = await fixture(['--token-ttl', '2']);
    const def = server(f);
    // Sign in through a throwaway store, then hand the tokens to a Pi-format file.
    const other = createTokenStore({ agentDir: mkdtempSync(join(tmpdir(), 'oauth-pi-')) });
    expect((await signIn(def, other)).ok).toBe(true);
    const signedIn = other.get('linear', f.url)!;
    const { issuer: _issuer, ...tokens } = signedIn.tokens!;
    const piState = {
      [`mcp__linear|${f.url}`]: {
        serverUrl: f.url,
        tokens,
        tokensExpireAt: Date.now() - 1_000,
        clientInformation: {
          client_id: signedIn.clientInformation!.client_id,
          redirect_uris: ['http://127.0.0.1:1/callback'],
        },
      },
    };
    writeFileSync(join(dir, 'mcp-auth.json'), JSON.stringify(piState));
    expect(store.get('linear', f.url)?.source).toBe('pi');
    const connection = await createMcpConnector({ tokenStore: store })(def, {
      signal: new AbortController().signal,
    });
    try {
      expect((await connection.callTool('echo', { text: 'switched' })).content[0]).toMatchObject({
        text: 'switched',
      });
    } finally {
      await connection.close();
    }
    const ours = store.get('linear', f.url)!;
    expect(ours.source).toBeUndefined();
    expect(ours.tokens?.access_token).not.toBe(tokens.access_token);
    expect((await f.stats()).authorizations).toBe(1);
  });
});
