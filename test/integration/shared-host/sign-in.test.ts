// One owner per sign-in, with the shared host: the host's instance is the only client of an OAuth
// server, so however many sessions call it, an expired access token is refreshed once; and a sign-in
// anywhere (`/mcp-auth` in one session, `pi-mcp-actors login` in a shell) lands in the agent dir's
// sign-in store the host reads, so every session waiting in needs-auth wakes and shares the one new
// connection. The fixture counts token requests at the authorization server.

import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import { createRuntime, type Runtime } from '../../../src/actors/session-actor.ts';
import { signInServer } from '../../../src/adapters/mcp/auth/sign-in.ts';
import { connectMcp } from '../../../src/adapters/mcp/index.ts';
import { bridgePi } from '../../../src/adapters/pi/bridge.ts';
import type { AuthPort } from '../../../src/auth/port.ts';
import { createTokenStore } from '../../../src/auth/token-store.ts';
import { nullLogger } from '../../../src/logger.ts';
import type { Connector } from '../../../src/machines/server-types.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { serverErrorText } from '../../../src/server-error-text.ts';
import { followAuthorization, type OAuthFixture, startOAuthFixture } from '../../fixtures/oauth/start.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { definition, loadedConfig } from '../../support/config.ts';
import { runCliBin } from '../../support/output-channels.ts';
import { RecordingPi } from '../../support/recording-pi.ts';
import { recordingHost } from '../../support/runtime.ts';
import { eventually, HostWorld, sessionsOf } from './harness.ts';

interface PiSession {
  pi: RecordingPi;
  runtime: Runtime;
}

/** The authorization URL a sign-in shows (a notification, the CLI's stderr). */
const AUTHORIZE_URL = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m;

let world: HostWorld;
let fixture: OAuthFixture;
const runtimes: Runtime[] = [];

beforeEach(() => {
  world = new HostWorld();
  // No browser opens: the test plays it with followAuthorization.
  vi.stubEnv('PI_MCP_NO_BROWSER', '1');
});

afterEach(async () => {
  for (const runtime of runtimes.splice(0)) {
    await runtime.stop();
    runtime.dispose();
  }
  await world.dispose();
  await fixture?.stop();
  vi.unstubAllEnvs();
});

/** A fresh OAuth fixture as the one shared keep-alive server `linear` of the user's config. */
async function oauthServer(flags: string[] = []): Promise<void> {
  fixture = await startOAuthFixture(flags);
  writeFileSync(
    `${world.agentDir}/mcp.json`,
    JSON.stringify({
      settings: { sharedHost: true },
      mcpServers: { linear: { url: fixture.url, oauth: {}, lifecycle: 'keep-alive' } },
    }),
  );
}

async function session(): Promise<PiSession> {
  const pi = new RecordingPi(world.project, true);
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: world.agentDir },
    homeDir: world.root,
  });
  await pi.emit('session_start', { reason: 'startup' });
  const runtime = await bridge.runtime();
  runtimes.push(runtime);
  return { pi, runtime };
}

const linear = (s: PiSession) => s.runtime.servers().linear!;

async function inNeedsAuth(...sessions: PiSession[]): Promise<void> {
  for (const s of sessions) {
    await waitFor(linear(s), (state) => state.matches('needsAuth'), { timeout: 20_000 });
    expect(serverErrorText(linear(s).getSnapshot().context.lastError)).toContain('run /mcp-auth linear');
  }
}

/** Every session wakes by itself, calls the server, and they all share the host's one connection. */
async function allShareOneConnection(...sessions: PiSession[]): Promise<void> {
  for (const s of sessions) {
    await waitFor(linear(s), (state) => state.matches('connected'), { timeout: 20_000 });
    const call = await s.runtime.callTool('linear__whoami', {});
    expect(call.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^client dcr-/) });
  }
  const status = await world.status();
  expect(sessionsOf(status)).toHaveLength(sessions.length);
  expect(status?.instances).toEqual([
    expect.objectContaining({ server: 'linear', state: 'connected', attached: sessions.length }),
  ]);
  expect(await fixture.stats()).toMatchObject({ authorizations: 1, registrations: 1 });
}

/** The token endpoint's requests so far (code exchanges and refreshes, refused ones too). */
const tokenRequests = () => fixture.requests().filter((r) => r === 'POST /token').length;

it('three sessions on one OAuth instance: an expired access token is refreshed once, and every call goes through', async () => {
  await oauthServer(['--rotate']);
  const signedIn = await signInServer(
    definition({
      name: 'linear',
      transport: 'http',
      url: fixture.url,
      auth: 'oauth',
      oauth: { grantType: 'authorization_code' },
    }),
    createTokenStore({ agentDir: world.agentDir }),
    { showUrl: (url) => void followAuthorization(url) },
  );
  expect(signedIn.ok).toBe(true);
  const sessions = [await session(), await session(), await session()];
  for (const s of sessions)
    await waitFor(linear(s), (state) => state.matches('connected'), { timeout: 20_000 });
  await eventually(async () =>
    expect((await world.status())?.instances).toEqual([expect.objectContaining({ attached: 3 })]),
  );
  const before = { requests: tokenRequests(), stats: await fixture.stats() };
  expect(before.stats.refreshes).toBe(0);

  // The authorization server forgets every access token: each session's next call meets a 401.
  await fixture.admin('expire-access');
  const calls = await Promise.all(
    sessions.map((s, i) => s.runtime.callTool('linear__echo', { text: `session ${i}` })),
  );
  calls.forEach((call, i) => {
    expect(call.isError, JSON.stringify(call.content)).toBeFalsy();
    expect(call.content[0]).toMatchObject({ type: 'text', text: `session ${i}` });
  });

  // One refresh request (the rotating refresh token would refuse a second), by the host's one client.
  expect(tokenRequests() - before.requests).toBe(1);
  expect(await fixture.stats()).toMatchObject({ refreshes: 1, authorizations: 1, registrations: 1 });
  expect((await world.status())?.instances).toEqual([
    expect.objectContaining({ server: 'linear', state: 'connected', attached: 3 }),
  ]);
});

it('`/mcp-auth linear` in one session wakes both sessions waiting in needs-auth through the host', async () => {
  await oauthServer();
  const a = await session();
  const b = await session();
  await inNeedsAuth(a, b);

  // In session A, as the user types it: the URL comes as a notification, the browser follows it.
  const command = a.pi.command('mcp-auth', 'linear');
  const url = await eventually(() => {
    const shown = AUTHORIZE_URL.exec(a.pi.notifications.map((n) => n.message).join('\n'));
    expect(shown).not.toBeNull();
    return shown![1]!;
  });
  await followAuthorization(url);
  // What A's user reads: signed in, and A's own server connected through the host.
  expect(await command).toMatch(/\nlinear: signed in\.\nlinear: connected, shared \(host pid \d+\)/);

  await allShareOneConnection(a, b);
  // B was never asked: it noticed the store change.
  expect(b.pi.notifications.map((n) => n.message).join('\n')).not.toMatch(AUTHORIZE_URL);
});

it('`pi-mcp-actors login linear` in a shell wakes both sessions waiting in needs-auth through the host', async () => {
  await oauthServer();
  const a = await session();
  const b = await session();
  await inNeedsAuth(a, b);

  // The real bin in its own process, with the test's agent dir; the test is its browser.
  let followed: Promise<void> | undefined;
  const followFrom = (child: ChildProcess) => {
    let stderr = '';
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      const shown = AUTHORIZE_URL.exec(stderr);
      if (shown && !followed) followed = followAuthorization(shown[1]!);
    });
  };
  const login = await runCliBin(
    ['login', 'linear'],
    { cwd: world.project, home: world.root, agentDir: world.agentDir },
    '',
    { PI_MCP_NO_BROWSER: '1' },
    followFrom,
  );
  expect(login.code, login.stderr).toBe(0);
  expect(login.stdout).toContain('linear: signed in.');
  await followed;

  await allShareOneConnection(a, b);
});

it("a runtime given another sign-in store than its agent dir's runs its servers itself; given the agent dir's, through the host", async () => {
  const elsewhere = join(world.root, 'elsewhere');
  mkdirSync(elsewhere);
  const inSession = { count: 0 };
  async function runtimeSigningInWith(storeDir: string): Promise<Runtime> {
    const auth: AuthPort = {
      store: createTokenStore({ agentDir: storeDir }),
      signIn: async () => ({ ok: false, message: 'not in this test' }),
      signOut: async () => ({ ok: false, message: 'not in this test' }),
    };
    const connector: Connector = (def, options) => {
      inSession.count++;
      return connectMcp(def, options);
    };
    const runtime = createRuntime({
      host: recordingHost(),
      connector,
      loadConfig: () =>
        loadedConfig([stdioDefinition([], { inheritEnv: false, lifecycle: 'eager' })], { sharedHost: true }),
      logger: nullLogger,
      secrets: new SecretValues(),
      tempDir: world.root,
      agentDir: world.agentDir,
      auth,
    });
    runtimes.push(runtime);
    await runtime.start({ cwd: world.project, projectTrusted: true });
    await waitFor(runtime.servers()['fixture-stdio']!, (s) => s.matches('connected'), { timeout: 20_000 });
    return runtime;
  }

  // The host could never see this runtime's sign-ins, nor the runtime the host's refreshes.
  await runtimeSigningInWith(elsewhere);
  expect(inSession.count).toBe(1);
  expect(await world.status()).toBeUndefined();

  await runtimeSigningInWith(world.agentDir);
  expect(inSession.count).toBe(1);
  expect(sessionsOf(await world.status())).toHaveLength(1);
});
