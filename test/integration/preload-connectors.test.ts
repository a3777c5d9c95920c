// What a Pi session loads in the background once its runtime has started, ahead of its first connect:
// the shared host's client for servers that run in the host, the MCP SDK only for servers that run in
// the session. Loading the SDK takes tens of ms of Pi's event loop, in the middle of the model's next
// turns; a session whose servers all run in the host never uses it (unless it falls back to running one
// itself, which then loads it). The runtime starts by its 1 s wake on XState's SimulatedClock.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
let bridge: PiBridge | undefined;
const env = () => ({ PI_CODING_AGENT_DIR: agentDir });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-preload-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(async () => {
  if (bridge) {
    const runtime = await bridge.runtime();
    await runtime.stop();
    runtime.dispose();
    bridge = undefined;
  }
  rmSync(root, { recursive: true, force: true });
});

/** Starts a session with this mcp.json and its runtime (its 1 s wake); resolves with what was preloaded. */
async function preloadedWith(config: object) {
  writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify(config));
  const loaded: string[] = [];
  const pi = new RecordingPi(project, true);
  const clock = new SimulatedClock();
  bridge = bridgePi(pi, {
    connector: connectMcp,
    env: env(),
    homeDir: root,
    clock,
    preloadConnector: async () => void loaded.push('sdk'),
    preloadHostClient: async () => void loaded.push('host client'),
  });
  await pi.emit('session_start', { reason: 'startup' });
  clock.increment(1_000);
  // Both loads start together, right after the search index is built: the first one seen means the
  // step has run.
  await vi.waitFor(() => expect(loaded.length).toBeGreaterThan(0), { timeout: 10_000, interval: 10 });
  return loaded.sort();
}

describe('what a session loads ahead of its first connect', () => {
  it('every server in the shared host (the default): the host client, not the MCP SDK', async () => {
    expect(await preloadedWith({ mcpServers: { notes: stdioFixture(['--name', 'notes']) } })).toEqual([
      'host client',
    ]);
  });

  it('servers in the session (`sharedHost: false`): the MCP SDK, not the host client', async () => {
    expect(
      await preloadedWith({
        settings: { sharedHost: false },
        mcpServers: { notes: stdioFixture(['--name', 'notes']) },
      }),
    ).toEqual(['sdk']);
  });

  it('one server in the host and one in the session (`share: "session"`): both', async () => {
    expect(
      await preloadedWith({
        mcpServers: {
          notes: stdioFixture(['--name', 'notes']),
          browser: { ...stdioFixture(['--name', 'browser']), share: 'session' },
        },
      }),
    ).toEqual(['host client', 'sdk']);
  });
});
