// What Pi says about a server that needs a sign-in (the real bridge, runtime and connector against the
// OAuth fixture): before the first sign-in a call of its tool says to run /mcp-auth (not "no longer
// provided"); after a refused refresh the answer keeps the reason. The CLI's words are tested in
// test/integration/cli-sign-in.test.ts.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/actors/session-actor.ts';
import { signInServer } from '../../../src/adapters/mcp/auth/sign-in.ts';
import { connectMcp } from '../../../src/adapters/mcp/index.ts';
import { bridgePi } from '../../../src/adapters/pi/bridge.ts';
import { createTokenStore } from '../../../src/auth/token-store.ts';
import { followAuthorization, type OAuthFixture, startOAuthFixture } from '../../fixtures/oauth/start.ts';
import { definition } from '../../support/config.ts';
import { removeTempRoot } from '../../support/hosts.ts';
import { RecordingPi } from '../../support/recording-pi.ts';

let root: string;
let agentDir: string;
let fixture: OAuthFixture | undefined;
let runtime: Runtime | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sign-in-words-'));
  agentDir = join(root, 'agent');
  mkdirSync(agentDir, { recursive: true });
});
afterEach(async () => {
  await runtime?.stop();
  runtime?.dispose();
  runtime = undefined;
  await fixture?.stop();
  fixture = undefined;
  await removeTempRoot(root);
});

async function piSession(f: OAuthFixture, settings: Record<string, unknown> = {}): Promise<Runtime> {
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({ settings, mcpServers: { linear: { url: f.url, oauth: {} } } }),
  );
  const pi = new RecordingPi(root, true);
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: agentDir },
    homeDir: root,
  });
  await pi.emit('session_start', { reason: 'startup' });
  runtime = await bridge.runtime();
  return runtime;
}

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');

describe('Pi: a server that needs a sign-in', () => {
  it('before the first sign-in, its tool is known to need one: run /mcp-auth', async () => {
    fixture = await startOAuthFixture();
    const session = await piSession(fixture);
    // ToolSearch meets the server first (it connects the servers whose tools are unknown).
    // The model reads it as a note for the user's hands: sign in with /mcp-auth.
    expect(text(await session.toolSearch('whoami'))).toContain('sign in with /mcp-auth linear');
    const call = await session.callTool('linear__whoami', {});
    expect(call.isError).toBe(true);
    expect(text(call)).toBe(
      'Tool linear__whoami is not known yet: MCP server "linear" lists its tools once you are signed in. Run /mcp-auth linear, then try again.',
    );
    expect(call.details).toMatchObject({ server: 'linear', unavailable: 'needs-auth' });
  });

  it.each([
    ['in the session (sharedHost: false): a new session connects and needs a sign-in', false],
    ['in the shared host: the next call on its still-connected copy fails', true],
  ])('after a refused refresh, the answer keeps the reason, %s', async (_where, sharedHost) => {
    fixture = await startOAuthFixture(['--token-ttl', '2']);
    const f = fixture;
    const def = definition({
      name: 'linear',
      transport: 'http',
      url: f.url,
      oauth: { grantType: 'authorization_code' },
    });
    const signedIn = await signInServer(
      def,
      createTokenStore({ agentDir }),
      { showUrl: (url) => void followAuthorization(url) },
      { env: { PI_MCP_NO_BROWSER: '1' } },
    );
    expect(signedIn.ok).toBe(true);
    const session = await piSession(f, { sharedHost });
    await session.toolSearch('echo');
    expect(text(await session.callTool('linear__echo', { text: 'hi' }))).toBe('hi');
    await session.stop();
    await f.admin('revoke-refresh');
    await f.admin('expire-access');
    const again = await piSession(f, { sharedHost });
    const call = await again.callTool('linear__echo', { text: 'hi' });
    expect(text(call)).toBe(
      sharedHost
        ? 'linear__echo failed: Server "linear" needs authentication (HTTP 401): the authorization server refused the refresh token: sign in again: run /mcp-auth linear (or `pi-mcp-actors login linear`)'
        : 'MCP server "linear" needs authentication: the authorization server refused the refresh token. Run /mcp-auth linear, then try again.',
    );
  });
});
