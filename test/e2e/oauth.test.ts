// OAuth in the real Pi (RPC mode): a session whose server needs a sign-in runs /mcp-auth; the
// command shows the authorization URL in a notification, the test opens it as a browser would (the
// fixture approves and redirects to our loopback callback), and the model then calls the server's tool.
// In print mode, /mcp-auth says what to run instead of waiting for a browser. The same against a stock
// oidc-provider (test/fixtures/oidc), which issues a refresh token only for offline_access.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { followAuthorization, type OAuthFixture, startOAuthFixture } from '../fixtures/oauth/start.ts';
import { followOidcAuthorization, startOidcFixture } from '../fixtures/oidc/start.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, TOOL_SEARCH, toolResultFor } from './harness/mcp.ts';
import { runPiPrint, startPiRpc } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let oauth: OAuthFixture;
let world: World | undefined;
let pi: { node22Path: string; piCliPath: string };
const BIN = resolve(import.meta.dirname, '../../bin/pi-mcp-actors.mjs');

beforeAll(async () => {
  pi = await ensurePi();
  oauth = await startOAuthFixture();
}, ENSURE_PI_TIMEOUT_MS);

/** Runs a command to its end; `onOutput` sees stdout + stderr so far. */
function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  onOutput?: (text: string) => void,
): Promise<{ code: number | null; output: string; stdout: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      output += d;
      onOutput?.(output);
    });
    child.stderr.on('data', (d) => {
      output += d;
      onOutput?.(output);
    });
    child.on('close', (code) => done({ code, output, stdout }));
  });
}
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});
afterAll(async () => {
  await oauth?.stop();
});

describe('OAuth sign-in in the real Pi', () => {
  it('/mcp-auth shows the URL, the browser comes back to the loopback, and the tool works', async () => {
    world = await createWorld({
      mcpJson: { mcpServers: { linear: { url: oauth.url, oauth: {} } } },
      script: [
        {
          toolCalls: [
            { id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:linear__whoami' } },
          ],
        },
        { toolCalls: [{ id: 'call_whoami', name: 'linear__whoami', arguments: {} }] },
        { text: 'You are signed in.' },
      ],
    });
    const rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION] });
    try {
      const since = rpc.records.length;
      const command = rpc.runCommand('/mcp-auth linear', { timeoutMs: 120_000 });
      const shown = await rpc.waitForRecord(
        (r) =>
          r.type === 'extension_ui_request' &&
          r.method === 'notify' &&
          String(r.message).startsWith('Sign in to linear'),
        { since, timeoutMs: 60_000 },
      );
      const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(String(shown.message))?.[1];
      expect(url).toBeDefined();
      await followAuthorization(url!);
      const done = await command;
      const result = done.notifications.map((n) => n.message).join('\n');
      expect(result).toContain('linear: signed in.');
      expect(result).not.toMatch(/at-[0-9a-f]{24}|rt-[0-9a-f]{24}/);

      const run = await rpc.promptAndWait('Who am I on linear?', { timeoutMs: 120_000 });
      expect(run.response.success).toBe(true);
      const third = world.llm.requests[2]!.body;
      expect(toolResultFor(third, 'call_whoami')).toMatch(/^client dcr-\w+ scopes mcp$/);
    } finally {
      await rpc.close();
    }
  });

  it('/mcp-auth against a stock oidc-provider: signed in with a refresh token, and the tool works', async () => {
    const oidc = await startOidcFixture();
    try {
      world = await createWorld({
        mcpJson: { mcpServers: { alice: { url: oidc.url } } },
        script: [
          {
            toolCalls: [
              { id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:alice__whoami' } },
            ],
          },
          { toolCalls: [{ id: 'call_whoami', name: 'alice__whoami', arguments: {} }] },
          { text: 'Signed in.' },
        ],
      });
      const rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION] });
      try {
        const since = rpc.records.length;
        const command = rpc.runCommand('/mcp-auth alice', { timeoutMs: 120_000 });
        const shown = await rpc.waitForRecord(
          (r) =>
            r.type === 'extension_ui_request' &&
            r.method === 'notify' &&
            String(r.message).startsWith('Sign in to alice'),
          { since, timeoutMs: 60_000 },
        );
        const url = /^(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(String(shown.message))?.[1];
        expect(url).toBeDefined();
        expect(new URL(url!).searchParams.get('scope')?.split(' ')).toContain('offline_access');
        expect(await followOidcAuthorization(url!)).toContain('Signed in');
        expect((await command).notifications.map((n) => n.message).join('\n')).toContain('alice: signed in.');
        const stored = JSON.parse(readFileSync(join(world.dir.agentDir, 'mcp-oauth.json'), 'utf8'));
        expect(stored.servers[`alice|${oidc.url}`].tokens.refresh_token).toBeTruthy();
        expect((await rpc.promptAndWait('Who am I?', { timeoutMs: 120_000 })).response.success).toBe(true);
        expect(toolResultFor(world.llm.requests[2]!.body, 'call_whoami')).toMatch(/^client \S+ scopes mcp$/);
      } finally {
        await rpc.close();
      }
    } finally {
      await oidc.stop();
    }
  });

  it('print mode: /mcp-auth says what to run instead of waiting for a browser', async () => {
    world = await createWorld({
      mcpJson: { mcpServers: { linear: { url: oauth.url, oauth: {} } } },
      script: [{ text: 'unused' }],
    });
    const authorizations = () => oauth.requests().filter((r) => r.startsWith('GET /authorize')).length;
    const before = authorizations();
    const run = await runPiPrint({ dir: world.dir, extensions: [EXTENSION], prompt: '/mcp-auth linear' });
    expect(run.code, run.stderr).toBe(0);
    // Pi keeps stdout for the answer in print mode; what an extension prints goes to stderr.
    expect(`${run.stdout}${run.stderr}`).toContain(
      'print mode cannot wait for one. Run `npx pi-mcp-actors login linear` in a terminal',
    );
    expect(authorizations()).toBe(before);
  });

  it("a sign-in made by Pi's own `pi mcp login` is used (and refreshed into our store) without signing in again", async () => {
    const fixture = await startOAuthFixture(['--token-ttl', '2']);
    const root = mkdtempSync(join(tmpdir(), 'pi-login-'));
    try {
      const agentDir = join(root, 'agent');
      mkdirSync(agentDir);
      writeFileSync(
        join(agentDir, 'mcp.json'),
        JSON.stringify({ mcpServers: { linear: { url: fixture.url } } }),
      );
      const env = { PI_CODING_AGENT_DIR: agentDir, HOME: root, PI_OFFLINE: '1', PI_MCP_NO_BROWSER: '1' };
      let followed = false;
      const login = await run(
        pi.node22Path,
        [pi.piCliPath, 'mcp', 'login', 'linear', '--timeout', '60'],
        env,
        (text) => {
          const url = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(text)?.[1];
          if (url && !followed) {
            followed = true;
            void followAuthorization(url);
          }
        },
      );
      expect(login.code, login.output).toBe(0);
      const piFile = join(agentDir, 'mcp-auth.json');
      const written = readFileSync(piFile, 'utf8');
      expect(Object.keys(JSON.parse(written))).toEqual([`mcp__linear|${fixture.url}`]);

      // Our CLI, same agent dir, once Pi's 2 s token has expired: no sign-in; the token is refreshed
      // (into our own store); Pi's file is left as it was.
      const expiresAt = (Object.values(JSON.parse(written))[0] as { tokensExpireAt: number }).tokensExpireAt;
      await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(expiresAt), {
        timeout: 10_000,
        interval: 50,
      });
      const call = await run(process.execPath, [BIN, 'call', 'linear__whoami', '{}'], env);
      expect(call.code, call.output).toBe(0);
      expect(call.stdout).toMatch(/^client dcr-\w+ scopes mcp$/m);
      const stats = await fixture.stats();
      expect(stats.authorizations).toBe(1);
      expect(stats.refreshes).toBeGreaterThanOrEqual(1);
      expect(readFileSync(piFile, 'utf8')).toBe(written);
      const ours = JSON.parse(readFileSync(join(agentDir, 'mcp-oauth.json'), 'utf8'));
      expect(ours.servers[`linear|${fixture.url}`].tokens.access_token).toMatch(/^at-/);
    } finally {
      await fixture.stop();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
