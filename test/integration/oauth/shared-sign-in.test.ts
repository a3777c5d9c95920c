// One sign-in store shared by processes: two processes refreshing at once spend the refresh token
// once and both keep working; `pi-mcp-actors login` in another process wakes a session waiting in
// needs-auth.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import type { Runtime } from '../../../src/actors/session-actor.ts';
import { signInServer } from '../../../src/adapters/mcp/auth/sign-in.ts';
import { connectMcp } from '../../../src/adapters/mcp/index.ts';
import { bridgePi } from '../../../src/adapters/pi/bridge.ts';
import { createTokenStore } from '../../../src/auth/token-store.ts';
import { serverErrorText } from '../../../src/server-error-text.ts';
import {
  followAuthorization,
  type OAuthFixture,
  startOAuthFixture,
  TSX_LOADER,
} from '../../fixtures/oauth/start.ts';
import { stopChild } from '../../fixtures/servers/spawn.ts';
import { definition } from '../../support/config.ts';
import { RecordingPi } from '../../support/recording-pi.ts';

const CALL_TOOL = resolve(import.meta.dirname, '../../fixtures/oauth/call-tool.ts');
const BIN = resolve(import.meta.dirname, '../../../bin/pi-mcp-actors.mjs');

let root: string;
let agentDir: string;
const fixtures: OAuthFixture[] = [];
const runtimes: Runtime[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'oauth-shared-'));
  agentDir = join(root, 'agent');
  mkdirSync(agentDir, { recursive: true });
});

afterEach(async () => {
  for (const runtime of runtimes.splice(0)) {
    await runtime.stop();
    runtime.dispose();
  }
  await Promise.all(fixtures.splice(0).map((f) => f.stop()));
  rmSync(root, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}, onStderr?: (text: string) => void) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: root,
      PI_CODING_AGENT_DIR: agentDir,
      PI_MCP_NO_BROWSER: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
    onStderr?.(stderr);
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveRun) =>
    child.on('close', (code) => resolveRun({ code, stdout, stderr })),
  );
  return { child, done };
}

/** A Pi session (through the bridge) whose one keep-alive server is a fresh OAuth fixture. */
async function sessionOnOAuthFixture(env: Record<string, string> = {}) {
  const f = await startOAuthFixture();
  fixtures.push(f);
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({ mcpServers: { linear: { url: f.url, oauth: {}, lifecycle: 'keep-alive' } } }),
  );
  const pi = new RecordingPi(root, true);
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: agentDir, ...env },
    homeDir: root,
  });
  await pi.emit('session_start', { reason: 'startup' });
  const runtime = await bridge.runtime();
  runtimes.push(runtime);
  return { f, runtime };
}

describe('a sign-in shared by processes', () => {
  it('two processes refreshing at once: one refresh, both calls succeed', async () => {
    const f = await startOAuthFixture(['--rotate']);
    fixtures.push(f);
    const store = createTokenStore({ agentDir });
    const def = definition({
      name: 'linear',
      transport: 'http',
      url: f.url,
      auth: 'oauth',
      oauth: { grantType: 'authorization_code' },
    });
    const signedIn = await signInServer(
      def,
      store,
      { showUrl: (url) => void followAuthorization(url) },
      { env: { PI_MCP_NO_BROWSER: '1' } },
    );
    expect(signedIn.ok).toBe(true);
    // Both processes find the access token about to expire, so both want to refresh first.
    await store.update('linear', f.url, (record) => ({ ...record!, tokensExpireAt: Date.now() - 1_000 }));
    const go = join(root, 'go');
    let ready = 0;
    let allReady: () => void = () => {};
    const bothReady = new Promise<void>((r) => {
      allReady = r;
    });
    const onReady = (stderr: string) => {
      if (stderr.includes('READY') && ++ready === 2) allReady();
    };
    const once = () => {
      let seen = false;
      return (stderr: string) => {
        if (!seen && stderr.includes('READY')) {
          seen = true;
          onReady(stderr);
        }
      };
    };
    const a = run(['--import', TSX_LOADER, CALL_TOOL, agentDir, f.url, go], {}, once());
    const b = run(['--import', TSX_LOADER, CALL_TOOL, agentDir, f.url, go], {}, once());
    try {
      // Both are loaded and polling for the go file when it appears.
      await bothReady;
      writeFileSync(go, '');
      const [ra, rb] = await Promise.all([a.done, b.done]);
      expect(ra).toMatchObject({ code: 0, stdout: `pid ${a.child.pid}\n` });
      expect(rb).toMatchObject({ code: 0, stdout: `pid ${b.child.pid}\n` });
      expect(await f.stats()).toMatchObject({ refreshes: 1, authorizations: 1 });
    } finally {
      await Promise.all([stopChild(a.child), stopChild(b.child)]);
    }
  });

  it('`pi-mcp-actors login` in another process wakes a running session waiting in needs-auth', async () => {
    const { runtime } = await sessionOnOAuthFixture();
    const linear = () => runtime.servers().linear!;
    await waitFor(linear(), (s) => s.matches('needsAuth'), { timeout: 20_000 });
    expect(serverErrorText(linear().getSnapshot().context.lastError)).toContain('run /mcp-auth linear');

    let followed = false;
    const login = run([BIN, 'login', 'linear'], {}, (stderr) => {
      const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr)?.[1];
      if (url && !followed) {
        followed = true;
        void followAuthorization(url);
      }
    });
    const result = await login.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('linear: signed in.');
    // Nobody told the session: it noticed the store change and connected by itself.
    await waitFor(linear(), (s) => s.matches('connected'), { timeout: 20_000 });
    const call = await runtime.callTool('linear__whoami', {});
    expect(call.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^client dcr-/) });
  });
  it('two sign-ins asked at once in a session waiting in needs-auth are one: one URL, one authorization', async () => {
    const { f, runtime } = await sessionOnOAuthFixture({ PI_MCP_NO_BROWSER: '1' });
    const linear = runtime.servers().linear!;
    await waitFor(linear, (s) => s.hasTag('needsSignIn'), { timeout: 20_000 });

    const shown: string[] = [];
    const io = (who: string) => ({ showUrl: (url: string) => shown.push(`${who} ${url}`) });
    const first = runtime.signIn('linear', io('first'));
    const second = runtime.signIn('linear', io('second'));
    await vi.waitFor(() => expect(shown).toHaveLength(1), { timeout: 20_000 });
    expect(shown[0]).toMatch(/^first http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    await followAuthorization(shown[0]!.slice('first '.length));
    for (const result of await Promise.all([first, second])) {
      expect(result.ok, result.message).toBe(true);
      expect(result.message).toMatch(/^linear: signed in\.\nlinear: connected/);
    }
    expect(shown).toHaveLength(1);
    expect((await f.stats()).authorizations).toBe(1);
  });
});
