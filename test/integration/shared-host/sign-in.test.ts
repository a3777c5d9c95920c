// A sign-in with the shared host: the host connects OAuth servers with the agent dir's sign-in store,
// so two sessions waiting in needs-auth (the host's auth failure crosses the socket as such) both wake
// when one sign-in lands, and share one connection made with it.

import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import type { Runtime } from '../../../src/actors/session-actor.ts';
import { signInServer } from '../../../src/adapters/mcp/auth/sign-in.ts';
import { connectMcp } from '../../../src/adapters/mcp/index.ts';
import { bridgePi } from '../../../src/adapters/pi/bridge.ts';
import { createTokenStore } from '../../../src/auth/token-store.ts';
import { serverErrorText } from '../../../src/server-error-text.ts';
import { followAuthorization, type OAuthFixture, startOAuthFixture } from '../../fixtures/oauth/start.ts';
import { definition } from '../../support/config.ts';
import { RecordingPi } from '../../support/recording-pi.ts';
import { HostWorld, sessionsOf } from './harness.ts';

let world: HostWorld;
let fixture: OAuthFixture | undefined;
const runtimes: Runtime[] = [];

beforeEach(() => {
  world = new HostWorld();
});

afterEach(async () => {
  for (const runtime of runtimes.splice(0)) {
    await runtime.stop();
    runtime.dispose();
  }
  await world.dispose();
  await fixture?.stop();
  fixture = undefined;
});

async function session(): Promise<Runtime> {
  const pi = new RecordingPi(world.project, true);
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: world.agentDir },
    homeDir: world.root,
  });
  await pi.emit('session_start', { reason: 'startup' });
  const runtime = await bridge.runtime();
  runtimes.push(runtime);
  return runtime;
}

it('two sessions in needs-auth through the host both wake on one sign-in and share its connection', async () => {
  fixture = await startOAuthFixture();
  writeFileSync(
    `${world.agentDir}/mcp.json`,
    JSON.stringify({
      settings: { sharedHost: true },
      mcpServers: { linear: { url: fixture.url, oauth: {}, lifecycle: 'keep-alive' } },
    }),
  );
  const a = await session();
  const b = await session();
  for (const runtime of [a, b]) {
    await waitFor(runtime.servers().linear!, (s) => s.matches('needsAuth'), { timeout: 20_000 });
    expect(serverErrorText(runtime.servers().linear!.getSnapshot().context.lastError)).toContain(
      'run /mcp-auth linear',
    );
  }

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
    { env: { PI_MCP_NO_BROWSER: '1' } },
  );
  expect(signedIn.ok).toBe(true);

  for (const runtime of [a, b]) {
    await waitFor(runtime.servers().linear!, (s) => s.matches('connected'), { timeout: 20_000 });
    const call = await runtime.callTool('linear__whoami', {});
    expect(call.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^client dcr-/) });
  }
  const status = await world.status();
  expect(sessionsOf(status)).toHaveLength(2);
  expect(status?.instances).toEqual([
    expect.objectContaining({ server: 'linear', state: 'connected', attached: 2 }),
  ]);
  expect(await fixture.stats()).toMatchObject({ authorizations: 1 });
});
