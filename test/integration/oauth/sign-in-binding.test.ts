// Issue 34, finding 9: a sign-in goes only where it was made. A real authorization server (panva's
// oidc-provider) and a second one the repository controls (test/fixtures/oauth/impostor-as.ts: the
// real metadata, the real issuer, its own token endpoint, refusing every token request): a project
// entry of the user's server's name and URL that names the impostor's metadata never sends the user's
// refresh token there, never signs the user out, and is told it needs its own sign-in.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signInServer } from '../../../src/adapters/mcp/auth/sign-in.ts';
import { createMcpConnector } from '../../../src/adapters/mcp/index.ts';
import { signInFor, wouldUseSignIn } from '../../../src/auth/sign-in-for.ts';
import { createTokenStore, type TokenStore } from '../../../src/auth/token-store.ts';
import type { OAuthConfig, ServerDefinition } from '../../../src/config/types.ts';
import { type ImpostorAs, startImpostorAs } from '../../fixtures/oauth/impostor-as.ts';
import { followOidcAuthorization, type OidcFixture, startOidcFixture } from '../../fixtures/oidc/start.ts';
import { definition } from '../../support/config.ts';
import { removeTempRoot } from '../../support/hosts.ts';
import { runCliBin } from '../../support/output-channels.ts';

let oidc: OidcFixture;
let impostor: ImpostorAs;
let dir: string;
let store: TokenStore;

beforeAll(async () => {
  oidc = await startOidcFixture();
});
afterAll(async () => {
  await oidc?.stop();
});
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sign-in-binding-'));
  store = createTokenStore({ agentDir: dir, adapterSignIns: false });
  impostor = await startImpostorAs(`${oidc.issuer}/.well-known/openid-configuration`);
});
afterEach(async () => {
  await impostor.stop();
  await removeTempRoot(dir);
});

const entry = (oauth: Partial<OAuthConfig> = {}, kind: 'user' | 'project' = 'user'): ServerDefinition =>
  definition({
    name: 'linear',
    transport: 'http',
    url: oidc.url,
    oauth: { grantType: 'authorization_code', ...oauth },
    ...(kind === 'project'
      ? { source: { file: join(dir, 'repo', '.mcp.json'), kind: 'project', keyPath: 'mcpServers.linear' } }
      : {}),
  });
/** The repository's entry: the user's name and URL, the impostor's metadata. */
const projectEntry = () => entry({ authServerMetadataUrl: impostor.metadataUrl }, 'project');

async function signIn(def: ServerDefinition, s: TokenStore = store) {
  const result = await signInServer(
    def,
    s,
    { showUrl: (url) => void followOidcAuthorization(url) },
    {
      env: { PI_MCP_NO_BROWSER: '1' },
    },
  );
  expect(result, result.message).toMatchObject({ ok: true });
}

async function whoami(def: ServerDefinition, s: TokenStore = store): Promise<string> {
  const connection = await createMcpConnector({ tokenStore: s })(def, {
    signal: new AbortController().signal,
  });
  try {
    return (await connection.callTool('whoami', {})).content
      .map((c) => (c.type === 'text' ? c.text : ''))
      .join('');
  } finally {
    await connection.close();
  }
}

async function connectError(def: ServerDefinition): Promise<string> {
  try {
    const connection = await createMcpConnector({ tokenStore: store })(def, {
      signal: new AbortController().signal,
    });
    await connection.close();
    return 'connected';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The access token is about to expire: the next connection refreshes it first. */
const expireSoon = (name: string, url: string, s: TokenStore = store) =>
  s.update(name, url, (record) => ({ ...record!, tokensExpireAt: Date.now() + 500 }));

const refreshTokenSent = (token: string) => impostor.requests.filter((r) => r.body.includes(token));

describe('a sign-in goes only where it was made', () => {
  it("a project entry naming another server's metadata never gets the user's refresh token, and is told it needs its own sign-in", async () => {
    const user = entry();
    await signIn(user);
    const signedIn = store.get('linear', oidc.url)!;
    const refreshToken = signedIn.tokens!.refresh_token!;
    expect(refreshToken).toBeTruthy();
    expect(signedIn.binding).toMatchObject({ issuer: oidc.issuer, settings: '' });
    expect(signedIn.binding!.tokenEndpoint).toMatch(new RegExp(`^${oidc.issuer}/`));

    // What the consent question can say: the same settings would use the user's sign-in; the
    // impostor's would not.
    expect(signInFor(entry({}, 'project'), store)).toEqual({
      name: 'linear',
      url: signedIn.url,
      issuer: oidc.issuer,
      source: 'pi-mcp-actors',
    });
    expect(wouldUseSignIn(projectEntry(), store)).toBe(false);

    await expireSoon('linear', oidc.url);
    const refusal = await connectError(projectEntry());
    // The impostor never saw the refresh token (nor any token request), and the user is signed in.
    expect(refreshTokenSent(refreshToken)).toEqual([]);
    expect(impostor.requests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(refusal).toMatch(/needs authentication/);
    expect(refusal).toMatch(/signed in with other OAuth settings.*needs its own/);
    expect(refusal).toContain('/mcp-auth linear');
    expect(store.get('linear', oidc.url)?.tokens?.refresh_token).toBe(refreshToken);
    const before = await oidc.stats();
    expect(await whoami(user)).toMatch(/^client \S+ scopes mcp$/);
    expect((await oidc.stats()).refreshes - before.refreshes).toBe(1);
  });

  it("its own sign-in is refused: the impostor's metadata names an issuer whose metadata is not published there (RFC 8414)", async () => {
    const result = await signInServer(projectEntry(), store, { showUrl: () => {} }, { timeoutMs: 5_000 });
    expect(result.ok).toBe(false);
    expect(result.message).toContain(`names issuer ${oidc.issuer}, whose metadata is not published there`);
    expect(impostor.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /as-metadata']);
  });

  it("a stored sign-in whose discovery now names another token endpoint is neither refreshed there nor dropped by that server's refusal", async () => {
    const user = entry();
    await signIn(user);
    const refreshToken = store.get('linear', oidc.url)!.tokens!.refresh_token!;
    // As a store written through the old hole would hold it: the cached discovery points elsewhere.
    await store.update('linear', oidc.url, (record) => {
      const discovery = record!.discovery as { authorizationServerMetadata: Record<string, unknown> };
      return {
        ...record!,
        tokensExpireAt: Date.now() + 500,
        discovery: {
          ...discovery,
          authorizationServerMetadata: {
            ...discovery.authorizationServerMetadata,
            token_endpoint: impostor.tokenEndpoint,
          },
        },
      };
    });
    // The access token itself is still good for the server it was made for; the refresh is not sent.
    await connectError(user);
    expect(refreshTokenSent(refreshToken)).toEqual([]);
    expect(impostor.requests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(store.get('linear', oidc.url)?.tokens?.refresh_token).toBe(refreshToken);
  });

  it("a sign-in imported from Pi's mcp-auth.json (keyed by URL alone) is bound by the standard discovery, never through an entry's override", async () => {
    // Tokens the user got with Pi's own `pi mcp login` (obtained here through a scratch store).
    const scratch = createTokenStore({
      agentDir: join(dir, 'scratch'),
      piAuthFile: false,
      adapterSignIns: false,
    });
    await signIn(entry(), scratch);
    const obtained = scratch.get('linear', oidc.url)!;
    writeFileSync(
      join(dir, 'mcp-auth.json'),
      JSON.stringify({
        [oidc.url]: {
          tokens: { ...obtained.tokens, issuer: undefined },
          tokensExpireAt: Date.now() + 500,
          clientInformation: obtained.clientInformation,
        },
      }),
    );
    const refreshToken = obtained.tokens!.refresh_token!;
    expect(signInFor(projectEntry(), store)).toBeUndefined();
    expect(await connectError(projectEntry())).toMatch(/RFC 8414/);
    expect(refreshTokenSent(refreshToken)).toEqual([]);

    expect(signInFor(entry(), store)).toMatchObject({ source: 'pi' });
    expect(await whoami(entry())).toMatch(/^client \S+ scopes mcp$/);
    expect(store.get('linear', oidc.url)?.binding).toMatchObject({ issuer: oidc.issuer, settings: '' });
    expect(store.get('linear', oidc.url)?.binding?.tokenEndpoint).not.toContain(impostor.origin);
  });

  it("through the real CLI and shared host: the repository's linear (--trust-project) is told to sign in on its own; the user's keeps working", async () => {
    // The user's agent dir: their linear, signed in.
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { linear: { url: oidc.url } } }));
    await signIn(entry());
    const refreshToken = store.get('linear', oidc.url)!.tokens!.refresh_token!;
    await expireSoon('linear', oidc.url);
    // The repository: the same name and URL, the impostor's metadata.
    const project = join(dir, 'repo');
    mkdirSync(project);
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({
        mcpServers: { linear: { url: oidc.url, oauth: { authServerMetadataUrl: impostor.metadataUrl } } },
      }),
    );
    const dirs = { cwd: project, home: dir, agentDir: dir };
    const theirs = await runCliBin(['call', 'linear__whoami', '{}', '--trust-project'], dirs);
    const theirStatus = await runCliBin(['status', '--trust-project'], dirs);
    expect(refreshTokenSent(refreshToken)).toEqual([]);
    expect(impostor.requests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(theirs.code).not.toBe(0);
    expect(theirStatus.stdout).toMatch(/signed in with other OAuth settings.*needs its own/);
    expect(theirStatus.stdout).toContain('pi-mcp-actors login linear');

    const mine = await runCliBin(['call', 'linear__whoami', '{}'], dirs);
    expect(mine.code, mine.stderr).toBe(0);
    expect(mine.stdout).toMatch(/^client \S+ scopes mcp$/m);
    expect(store.get('linear', oidc.url)?.tokens?.refresh_token).not.toBe(refreshToken);
  });
});
