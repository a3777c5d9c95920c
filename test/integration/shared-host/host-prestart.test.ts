// The shared host starts while the model thinks (issue 35): once a session's first model request is on
// its way, before the runtime loads or any tool is called, as a server starts at ToolSearch; before the
// request nothing of it runs. From a loaded config and from the start record alike. The wake timer runs
// on XState's SimulatedClock and never fires, so nothing else (the runtime's start, a connect) can
// have started the host.

import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { connectMcp } from '../../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../../src/adapters/pi/bridge.ts';
import { START_RECORD_FILE_NAME } from '../../../src/adapters/pi/start-record.ts';
import { configHash, createCacheStore } from '../../../src/catalog/cache.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { readProcState, stdioFixture } from '../../fixtures/servers/spawn.ts';
import { RecordingPi } from '../../support/recording-pi.ts';
import { eventually, type HostWorld, useHostWorld } from './harness.ts';

const world = useHostWorld();

/** One shared server whose tools are cached: the session's start connects nothing. */
async function configure(w: HostWorld, settings: Record<string, unknown> = {}): Promise<void> {
  writeFileSync(
    join(w.agentDir, 'mcp.json'),
    JSON.stringify({ settings, mcpServers: { notes: stdioFixture(['--name', 'notes']) } }),
  );
  const env = { PI_CODING_AGENT_DIR: w.agentDir };
  const config = loadConfig({
    agentDir: w.agentDir,
    cwd: w.project,
    homeDir: w.root,
    env,
    projectTrusted: true,
  });
  const tools = [{ name: 'add_note', description: 'Adds a note', inputSchema: { type: 'object' } }];
  await createCacheStore({ file: join(w.agentDir, 'mcp-cache.json') }).write(
    Object.fromEntries(
      config.servers.map((d) => [
        d.name,
        { configHash: configHash(d), tools, resources: [], cachedAt: Date.now() },
      ]),
    ),
  );
}

/** A Pi session up to its first model request being prepared (not yet sent). */
async function preparedSession(w: HostWorld): Promise<{ pi: RecordingPi; bridge: PiBridge }> {
  const pi = new RecordingPi(w.project);
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: w.agentDir },
    homeDir: w.root,
    clock: new SimulatedClock(),
  });
  await pi.emit('session_start', { reason: 'startup' });
  await pi.emit('agent_start', {});
  return { pi, bridge };
}

/** The host answers, with nothing attached to it: no session connected a server. */
async function hostUpWithNothingAttached(w: HostWorld): Promise<number> {
  const status = await eventually(async () => {
    const s = await w.status();
    expect(s).toBeDefined();
    return s!;
  });
  expect(status.instances).toEqual([]);
  return status.pid;
}

it('starts the host once the first request is on its way, before any call', async () => {
  const w = world();
  await configure(w);
  const { pi, bridge } = await preparedSession(w);
  expect(bridge.startedFrom()).toBe('load');
  expect(await w.status()).toBeUndefined();
  await pi.emit('before_provider_request', { payload: {} });
  await hostUpWithNothingAttached(w);
});

it('from the start record too: a session that prepared its request from the record starts the host', async () => {
  const w = world();
  await configure(w);
  const first = await preparedSession(w);
  await first.pi.emit('before_provider_request', { payload: {} });
  const pid = await hostUpWithNothingAttached(w);
  await eventually(() => expect(existsSync(join(w.agentDir, START_RECORD_FILE_NAME))).toBe(true));
  process.kill(pid, 'SIGTERM');
  await eventually(() => expect(readProcState(pid)).toBeUndefined());

  const second = await preparedSession(w);
  expect(second.bridge.startedFrom()).toBe('record');
  expect(await w.status()).toBeUndefined();
  await second.pi.emit('before_provider_request', { payload: {} });
  await hostUpWithNothingAttached(w);
});
