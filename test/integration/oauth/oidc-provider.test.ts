// OAuth against a stock third-party authorization server: panva's oidc-provider from npm with its
// default policies (refresh tokens only for offline_access, rotated on every use by a public client;
// registration refuses a scope it does not list), fronting an MCP resource server written with the
// SDK. Through the real sign-in flow, connector and token store.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { signInServer } from '../../../src/adapters/mcp/auth/sign-in.ts';
import { createMcpConnector } from '../../../src/adapters/mcp/index.ts';
import { createTokenStore, type TokenStore } from '../../../src/auth/token-store.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import {
  followOidcAuthorization,
  type OidcFixture,
  oidcRedirect,
  startOidcFixture,
} from '../../fixtures/oidc/start.ts';
import { definition } from '../../support/config.ts';
import { runCliBin } from '../../support/output-channels.ts';

const BIN = resolve(import.meta.dirname, '../../../bin/pi-mcp-actors.mjs');

let oidc: OidcFixture;
let dir: string;
let store: TokenStore;

beforeAll(async () => {
  oidc = await startOidcFixture();
});
afterAll(async () => {
  await oidc?.stop();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oidc-'));
  store = createTokenStore({ agentDir: dir });
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const server = (): ServerDefinition =>
  definition({ name: 'alice', transport: 'http', url: oidc.url, oauth: { grantType: 'authorization_code' } });

/** Signs in by the loopback: the test's browser follows the URL the flow shows. */
async function signInByLoopback(def: ServerDefinition) {
  let shown = '';
  let page = '';
  const browser = new AbortController();
  const result = await signInServer(
    def,
    store,
    {
      showUrl: (url) => {
        shown = url;
        followOidcAuthorization(url).then(
          (text) => {
            page = text;
          },
          () => browser.abort(),
        );
      },
      signal: browser.signal,
    },
    { env: { PI_MCP_NO_BROWSER: '1' } },
  );
  return { ...result, shown, page: () => page };
}

const redirect = (shown: string) => new URL(new URL(shown).searchParams.get('redirect_uri')!);

async function whoami(def: ServerDefinition): Promise<string> {
  const connection = await createMcpConnector({ tokenStore: store })(def, {
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

describe('OAuth against oidc-provider', () => {
  it('signs in by the loopback: registers once (without the scope it does not list), asks for offline_access, gets a refresh token', async () => {
    const before = await oidc.stats();
    const def = server();
    const result = await signInByLoopback(def);
    expect(result, result.message).toMatchObject({ ok: true, message: 'alice: signed in.' });
    const asked = new URL(result.shown).searchParams;
    expect(asked.get('scope')?.split(' ').sort()).toEqual(['mcp', 'offline_access']);
    expect(asked.get('prompt')).toBe('consent');
    expect(asked.get('resource')).toBe(oidc.url);
    const record = store.get('alice', oidc.url)!;
    expect(record.tokens?.refresh_token).toBeTruthy();
    expect(await whoami(def)).toBe(`client ${record.clientInformation!.client_id} scopes mcp`);
    const after = await oidc.stats();
    expect(after.registrations - before.registrations).toBe(1);
    expect(after.refusedRegistrations - before.refusedRegistrations).toBe(1);
    expect(after.codeExchanges - before.codeExchanges).toBe(1);
  });

  it('signs in with a pasted redirect URL (no browser reaches the loopback)', async () => {
    const def = server();
    let paste: (text: string) => void = () => {};
    const result = await signInServer(def, store, {
      showUrl: (url) => void oidcRedirect(url).then((location) => paste(location)),
      pasteRedirectUrl: () =>
        new Promise((resolve) => {
          paste = resolve;
        }),
    });
    expect(result, result.message).toMatchObject({ ok: true });
    expect(await whoami(def)).toMatch(/^client \S+ scopes mcp$/);
  });

  it("refreshes silently under oidc-provider's default policy (a rotated refresh token each time)", async () => {
    const def = server();
    expect((await signInByLoopback(def)).ok).toBe(true);
    const first = store.get('alice', oidc.url)!.tokens!;
    const before = await oidc.stats();
    for (let round = 0; round < 2; round++) {
      const current = store.get('alice', oidc.url)!.tokens!;
      // Time passes: the access token is about to expire.
      await store.update('alice', oidc.url, (record) => ({ ...record!, tokensExpireAt: Date.now() + 500 }));
      expect(await whoami(def)).toMatch(/ scopes mcp$/);
      const now = store.get('alice', oidc.url)!.tokens!;
      expect(now.access_token).not.toBe(current.access_token);
      expect(now.refresh_token).toBeTruthy();
      expect(now.refresh_token).not.toBe(current.refresh_token);
    }
    expect(store.get('alice', oidc.url)!.tokens!.refresh_token).not.toBe(first.refresh_token);
    expect((await oidc.stats()).refreshes - before.refreshes).toBe(2);
  });

  it('a second sign-in reuses the registered client though the loopback port changed (RFC 8252 §7.3)', async () => {
    const def = server();
    const first = await signInByLoopback(def);
    expect(first.ok).toBe(true);
    const client = store.get('alice', oidc.url)!.clientInformation!.client_id;
    const before = await oidc.stats();
    // The port the client was registered with is taken now: the sign-in listens on another one.
    const taken = createServer();
    await new Promise<void>((resolve) =>
      taken.listen(Number(redirect(first.shown).port), '127.0.0.1', resolve),
    );
    const second = await signInByLoopback(def).finally(() => taken.close());
    expect(second, second.message).toMatchObject({ ok: true });
    expect(redirect(second.shown).port).not.toBe(redirect(first.shown).port);
    expect(new URL(second.shown).searchParams.get('client_id')).toBe(client);
    expect(store.get('alice', oidc.url)!.clientInformation!.client_id).toBe(client);
    const after = await oidc.stats();
    expect(after.registrations).toBe(before.registrations);
    expect(after.refusedRegistrations).toBe(before.refusedRegistrations);
    expect(second.page()).toContain('Signed in');
    expect(await whoami(def)).toBe(`client ${client} scopes mcp`);
    // With its port free again, a third sign-in listens where the client was registered.
    const third = await signInByLoopback(def);
    expect(third.ok).toBe(true);
    expect(redirect(third.shown).port).toBe(redirect(first.shown).port);
    expect((await oidc.stats()).registrations).toBe(before.registrations);
  });

  it('the CLI (the real bin): login with the redirect URL piped in, call, and a silent refresh', async () => {
    const agentDir = join(dir, 'agent');
    mkdirSync(agentDir);
    writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify({ mcpServers: { alice: { url: oidc.url } } }));
    const dirs = { cwd: dir, home: dir, agentDir };
    const child = spawn(process.execPath, [BIN, 'login', 'alice'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, PI_CODING_AGENT_DIR: agentDir, PI_MCP_NO_BROWSER: '1' },
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    try {
      const shown = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/;
      await vi.waitFor(() => expect(stderr).toMatch(shown), { timeout: 20_000, interval: 50 });
      child.stdin.write(`${await oidcRedirect(shown.exec(stderr)![1]!)}\n`);
      expect(await exited, stderr).toBe(0);
    } finally {
      child.kill();
    }
    expect(stdout).toContain('alice: signed in.');
    const call = await runCliBin(['call', 'alice__whoami', '{}'], dirs);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toMatch(/^client \S+ scopes mcp$/m);
    // Time passes: the access token is about to expire; the next call refreshes it first.
    const cliStore = createTokenStore({ agentDir });
    const before = cliStore.get('alice', oidc.url)!.tokens!;
    const refreshes = (await oidc.stats()).refreshes;
    await cliStore.update('alice', oidc.url, (record) => ({ ...record!, tokensExpireAt: Date.now() + 500 }));
    const again = await runCliBin(['call', 'alice__echo', '{"text":"still signed in"}'], dirs);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe('still signed in');
    expect((await oidc.stats()).refreshes).toBe(refreshes + 1);
    expect(createTokenStore({ agentDir }).get('alice', oidc.url)!.tokens!.refresh_token).not.toBe(
      before.refresh_token,
    );
  });
});
