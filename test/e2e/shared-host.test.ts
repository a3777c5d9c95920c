// Two `pi -p` sessions in the real Pi with `settings.sharedHost`: the first starts the shared host and
// the server in it; the second attaches to that warm server (same host, same server process, nothing
// started); the host outlives both sessions, and stops by pid at the end. A session that inspects
// (--mcp-inspect) sees the host's instance actor too.

import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { openHost } from '../../src/adapters/host/start-host.ts';

import type { HostStatus } from '../../src/host/protocol.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import {
  EXTENSION,
  markedProcesses,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import { isRunning } from './harness/processes.ts';
import { runPiPrint } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
const hostPids = new Set<number>();

beforeAll(async () => {
  await ensurePi();
}, ENSURE_PI_TIMEOUT_MS);

afterEach(async () => {
  for (const pid of hostPids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {}
  }
  await vi.waitFor(() => expect([...hostPids].filter(isRunning)).toEqual([]), 10_000);
  hostPids.clear();
  await world?.cleanup();
  world = undefined;
});

async function hostStatus(agentDir: string): Promise<HostStatus> {
  const client = await openHost({ agentDir, label: 'pi-mcp-actors host' });
  try {
    const status = await client.status();
    hostPids.add(status.pid);
    return status;
  } finally {
    client.close();
  }
}

const turn = (id: string, text: string) => [
  { toolCalls: [{ id: `${id}_search`, name: TOOL_SEARCH, arguments: { query: 'select:fx__echo' } }] },
  { toolCalls: [{ id: `${id}_call`, name: 'fx__echo', arguments: { text } }] },
  { text: `${id} done` },
];

/**
 * A world whose scripted model echoes `firstText` in a first `pi -p` session and `secondText` in the
 * next, after the first has run: its server is left warm in the host. Returns the host's status then.
 */
async function warmedBy(marker: string, firstText: string, secondText: string) {
  world = await createWorld({
    script: [...turn('first', firstText), ...turn('second', secondText)],
    mcpJson: {
      settings: { sharedHost: true },
      mcpServers: { fx: stdioEntry(marker, [], { inheritEnv: false }) },
    },
  });
  const agentDir = world.dir.env.PI_CODING_AGENT_DIR!;
  const first = await runPiPrint({ dir: world.dir, extensions: [EXTENSION], prompt: 'Echo once' });
  expect(first.code, first.stderr).toBe(0);
  return { w: world, agentDir, warm: await hostStatus(agentDir) };
}

describe('the shared host in the real Pi', () => {
  it('a second pi -p session calls the server the first one started, in the same host', async () => {
    const marker = uniqueMarker('shared');
    const { w, agentDir, warm } = await warmedBy(marker, 'from the first session', 'from the second session');
    expect(toolResultFor(w.llm.requests[2]!.body as never, 'first_call')).toContain('from the first session');
    // The session ended; the host and its server stay, warm, with nobody attached.
    expect(warm.instances).toEqual([
      expect.objectContaining({ server: 'fx', state: 'connected', attached: 0 }),
    ]);
    expect(markedProcesses(marker)).toHaveLength(1);

    const second = await runPiPrint({ dir: w.dir, extensions: [EXTENSION], prompt: 'Echo again' });
    expect(second.code, second.stderr).toBe(0);
    expect(toolResultFor(w.llm.requests[5]!.body as never, 'second_call')).toContain(
      'from the second session',
    );
    const after = await hostStatus(agentDir);
    expect(after.pid).toBe(warm.pid);
    expect(after.instances).toEqual([expect.objectContaining({ server: 'fx', pid: warm.instances[0]!.pid })]);
    expect(markedProcesses(marker)).toHaveLength(1);
    expect(w.llm.errors).toEqual([]);
  });

  it('a session with --mcp-inspect sees the warm instance actor of the host in its JSONL', async () => {
    const marker = uniqueMarker('inspected');
    const { w, warm } = await warmedBy(marker, 'warms it', 'inspects it');

    const file = w.file('events.jsonl');
    const second = await runPiPrint({
      dir: w.dir,
      extensions: [EXTENSION],
      prompt: 'Echo again',
      args: ['--mcp-inspect', file],
    });
    expect(second.code, second.stderr).toBe(0);
    const events = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, any>);
    const host = events.find((e) => e.type === '@xstate.actor' && e.systemId === 'host:server:fx');
    expect(host?.sessionId).toMatch(new RegExp(`^host:${warm.pid}:`));
    // Already connected when this session attached: it appears with that state, not from the start.
    const top = (value: unknown) => (typeof value === 'string' ? value : Object.keys(value as object)[0]);
    expect(top(host?.snapshot.value)).toBe('connected');
    const hostStates = events
      .filter((e) => e.type === '@xstate.snapshot' && e.sessionId === host?.sessionId)
      .map((e) => top(e.snapshot.value));
    expect(hostStates).not.toContain('connecting');
    expect(events.some((e) => e.type === '@xstate.actor' && e.systemId === 'server:fx')).toBe(true);
    expect(markedProcesses(marker)).toHaveLength(1);
  });
});
