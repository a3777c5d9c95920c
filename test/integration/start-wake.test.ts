// When Pi's session runtime starts by itself: 1 s after a session_start that sends no request, 250 ms
// after the first request is handed to the provider, never while Pi prepares it. The bridge's one
// timer runs on the clock it is given; here XState's SimulatedClock moves it, no real time passes.
// The runtime is seen starting by the deferred tools it registers (the start path registers none); the
// clock is watched for the timers armed and still pending.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import { configHash, createCacheStore } from '../../src/catalog/cache.ts';
import { loadConfig } from '../../src/config/load.ts';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
let bridge: PiBridge | undefined;
const env = () => ({ PI_CODING_AGENT_DIR: agentDir });

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-start-wake-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({ mcpServers: { notes: stdioFixture(['--name', 'notes']) } }),
  );
  const config = loadConfig({ agentDir, cwd: project, homeDir: root, env: env(), projectTrusted: true });
  const tools = [{ name: 'add_note', description: 'Adds a note', inputSchema: { type: 'object' } }];
  await createCacheStore({ file: join(agentDir, 'mcp-cache.json') }).write(
    Object.fromEntries(
      config.servers.map((d) => [
        d.name,
        { configHash: configHash(d), tools, resources: [], cachedAt: Date.now() },
      ]),
    ),
  );
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

/** XState's SimulatedClock, telling which timers (their delays) are pending. */
function watchedClock() {
  const clock = new SimulatedClock();
  const pending = new Map<unknown, number>();
  return {
    pending: () => [...pending.values()],
    increment: (ms: number) => clock.increment(ms),
    setTimeout(fn: (...args: any[]) => void, ms: number) {
      const id = clock.setTimeout(() => {
        pending.delete(id);
        fn();
      }, ms);
      pending.set(id, ms);
      return id;
    },
    clearTimeout(id: any) {
      pending.delete(id);
      clock.clearTimeout(id);
    },
  };
}

async function startSession() {
  const pi = new RecordingPi(project, true);
  const clock = watchedClock();
  bridge = bridgePi(pi, { connector: connectMcp, env: env(), homeDir: root, clock });
  await pi.emit('session_start', { reason: 'startup' });
  const runtimeStarted = () => pi.tools.has('notes__add_note');
  return { pi, clock, runtimeStarted };
}

describe("the runtime's own start after Pi's", () => {
  it('a session that sends no request starts its runtime after 1 s', async () => {
    const { clock, runtimeStarted } = await startSession();
    expect(clock.pending()).toEqual([1_000]);
    clock.increment(999);
    expect(clock.pending()).toEqual([1_000]);
    clock.increment(1);
    await vi.waitFor(() => expect(runtimeStarted()).toBe(true), { timeout: 10_000, interval: 10 });
  });

  it('while Pi prepares a request nothing starts; 250 ms after it is sent the runtime does', async () => {
    const { pi, clock, runtimeStarted } = await startSession();
    await pi.emit('agent_start', {});
    expect(clock.pending()).toEqual([]);
    await pi.emit('before_provider_request', { payload: {} });
    expect(clock.pending()).toEqual([250]);
    clock.increment(249);
    expect(runtimeStarted()).toBe(false);
    clock.increment(1);
    await vi.waitFor(() => expect(runtimeStarted()).toBe(true), { timeout: 10_000, interval: 10 });
  });

  it('a session that ends before its wake starts nothing', async () => {
    const { pi, clock, runtimeStarted } = await startSession();
    await pi.emit('session_shutdown', {});
    expect(clock.pending()).toEqual([]);
    expect(runtimeStarted()).toBe(false);
    bridge = undefined;
  });
});
