// A server that speaks only MCP 2026-07-28 (the SDK v2 server package; `initialize` is refused) used
// from the real Pi with the default `protocolVersion: "auto"`: a cold session asks it which protocol it
// speaks and learns its tools; a warm session finds a tool with ToolSearch from the cache before the
// server runs, calls it, answers its question (an input_required elicitation on the call's own
// response) in Pi's dialog, watches a long call's progress and cancels it (Esc = RPC `abort`); and a
// long call the server runs as a task (the Tasks extension): its status shows as progress, its result
// arrives, and Esc cancels the next one on the server (tasks/cancel).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureArgs } from '../fixtures/servers/spawn.ts';
import { stopHostsUnder } from '../support/hosts.ts';
import { abortLongCall } from './harness/abort-long-call.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { toolNames } from './harness/fake-llm.ts';
import {
  EXTENSION,
  killMarked,
  loadedByToolSearch,
  markedProcesses,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import type { ProcInfo } from './harness/processes.ts';
import { type PiRecord, runPiPrint, startPiRpc, type UiAnswer } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const marker = uniqueMarker('modern');
let world: World;
/** The fixture appends `TASK <id> created|completed|cancelled` here. */
const taskLogDir = mkdtempSync(join(tmpdir(), 'modern-tasks-'));
const taskLog = join(taskLogDir, 'tasks.log');
const taskEvents = () => {
  try {
    return readFileSync(taskLog, 'utf8');
  } catch {
    return '';
  }
};

beforeAll(async () => {
  await ensurePi();
  world = await createWorld({
    script: [
      {
        toolCalls: [
          { id: 'call_cold_search', name: TOOL_SEARCH, arguments: { query: 'select:modern__add' } },
        ],
      },
      { toolCalls: [{ id: 'call_add', name: 'modern__add', arguments: { a: 2, b: 3 } }] },
      { text: 'cold session done' },
    ],
    mcpJson: {
      mcpServers: {
        modern: {
          command: process.execPath,
          // Its tool list may be reused for an hour (ttlMs), so the next session finds it in the cache.
          args: [
            ...fixtureArgs('modern-server'),
            ...['--name', marker, '--list-ttl-ms', '3600000', '--task-log', taskLog],
          ],
        },
      },
    },
  });
}, ENSURE_PI_TIMEOUT_MS);

afterAll(async () => {
  await world?.cleanup();
  killMarked(marker);
  rmSync(taskLogDir, { recursive: true, force: true });
});

/** The user answers the server's question: yes. */
function answer(request: PiRecord): UiAnswer | undefined {
  const title = String(request.title);
  if (request.method !== 'select') return undefined;
  if (title.includes('asks:')) return { value: 'Answer' };
  return { value: 'Yes' };
}

describe('a 2026-07-28-only server in the real Pi', () => {
  it('cold: auto finds the modern protocol, the tools are listed, searched and called, and both answers are remembered', async () => {
    const run = await runPiPrint({ dir: world.dir, extensions: [EXTENSION], prompt: 'Add 2 and 3' });
    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const [, second, third] = world.llm.requests.map((r) => r.body);
    expect(loadedByToolSearch(toolResultFor(second!, 'call_cold_search')!)).toEqual(['modern__add']);
    expect(toolResultFor(third!, 'call_add')).toBe('5');
    const cache = JSON.parse(readFileSync(join(world.dir.agentDir, 'mcp-cache.json'), 'utf8'));
    expect(cache.servers.modern.tools.map((t: { name: string }) => t.name).sort()).toEqual([
      'add',
      'confirm',
      'grow',
      'research',
      'slow',
    ]);
    expect(cache.servers.modern.ttlMs).toBe(3_600_000);
    const eras = JSON.parse(readFileSync(join(world.dir.agentDir, 'mcp-protocol-eras.json'), 'utf8'));
    expect(eras.servers[cache.servers.modern.configHash]).toMatchObject({ era: 'modern' });
    // The server ran in the shared host the session started: nothing is left once it stops.
    await stopHostsUnder(world.dir.root);
    expect(markedProcesses(marker)).toEqual([]);
  });

  it('warm: ToolSearch finds it from the cache, the elicitation is answered in Pi, a long call shows progress and Esc cancels it', async () => {
    const base = world.llm.requests.length;
    let atFirstRequest: ProcInfo[] | undefined;
    world.llm.push(
      () => {
        atFirstRequest = markedProcesses(marker);
        return {
          toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'confirm action' } }],
        };
      },
      { toolCalls: [{ id: 'call_confirm', name: 'modern__confirm', arguments: { action: 'deploy' } }] },
      { text: 'confirmed' },
      {
        toolCalls: [
          { id: 'call_search_slow', name: TOOL_SEARCH, arguments: { query: 'select:modern__slow' } },
        ],
      },
      { toolCalls: [{ id: 'call_slow', name: 'modern__slow', arguments: { steps: 100, ms: 100 } }] },
    );
    const rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION], onDialog: answer });
    try {
      await rpc.promptAndWait('Deploy, after asking me', { timeoutMs: 120_000 });
      expect(world.llm.errors).toEqual([]);
      const [first, second, third] = world.llm.requests.slice(base).map((r) => r.body);
      // Turn one: the server has not started; its tools come from the cache.
      expect(atFirstRequest).toEqual([]);
      expect(toolNames(first!)).toContain(TOOL_SEARCH);
      expect(loadedByToolSearch(toolResultFor(second!, 'call_search')!)).toContain('modern__confirm');
      expect(toolResultFor(third!, 'call_confirm')).toBe('deploy: done');
      const question = rpc.records.find(
        (r) => r.type === 'extension_ui_request' && String(r.title).includes('Really deploy?'),
      );
      expect(question).toBeDefined();

      const { update, settled, end, abortMs } = await abortLongCall(rpc, 'Now the long job', 'call_slow');
      expect(JSON.stringify(update)).toMatch(/step \d+ of 100/);
      expect(settled.aborted).toBe(true);
      // 100 steps of 100 ms would take 10 s.
      expect(abortMs).toBeLessThan(5_000);
      expect(end?.isError).toBe(true);
      expect((await rpc.close()).code).toBe(0);
    } finally {
      rpc.kill();
    }
    // The server ran in the shared host the session started: nothing is left once it stops.
    await stopHostsUnder(world.dir.root);
    expect(markedProcesses(marker)).toEqual([]);
  }, 120_000);

  it('a Task-based long call: its status shows as progress, the result arrives, and Esc cancels the next task on the server', async () => {
    const base = world.llm.requests.length;
    world.llm.push(
      {
        toolCalls: [
          { id: 'call_search_research', name: TOOL_SEARCH, arguments: { query: 'select:modern__research' } },
        ],
      },
      {
        toolCalls: [
          {
            id: 'call_research',
            name: 'modern__research',
            arguments: { topic: 'actors', steps: 5, ms: 200 },
          },
        ],
      },
      { text: 'researched' },
      {
        toolCalls: [
          {
            id: 'call_research_long',
            name: 'modern__research',
            arguments: { topic: 'everything', steps: 100, ms: 100 },
          },
        ],
      },
    );
    const rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION], onDialog: answer });
    try {
      const first = await rpc.promptAndWait('Research actors', { timeoutMs: 60_000 });
      expect(world.llm.errors).toEqual([]);
      const updates = first.records.filter(
        (r) => r.type === 'tool_execution_update' && r.toolCallId === 'call_research',
      );
      expect(JSON.stringify(updates)).toMatch(/step \d of 5/);
      const third = world.llm.requests[base + 2]!.body;
      expect(toolResultFor(third, 'call_research')).toBe('researched actors in 5 steps');
      expect(taskEvents()).toMatch(/TASK \S+ completed/);

      const { update, settled, end, abortMs } = await abortLongCall(
        rpc,
        'Now research everything',
        'call_research_long',
      );
      expect(JSON.stringify(update)).toMatch(/step \d+ of 100/);
      expect(settled.aborted).toBe(true);
      // 100 steps of 100 ms would take 10 s.
      expect(abortMs).toBeLessThan(5_000);
      expect(end?.isError).toBe(true);
      // The task was cancelled on the server, not left running.
      await vi.waitFor(() => expect(taskEvents()).toMatch(/TASK \S+ cancelled/), { timeout: 10_000 });
      expect(taskEvents().match(/completed/g)).toHaveLength(1);
      expect((await rpc.close()).code).toBe(0);
    } finally {
      rpc.kill();
    }
    // The server ran in the shared host the session started: nothing is left once it stops.
    await stopHostsUnder(world.dir.root);
    expect(markedProcesses(marker)).toEqual([]);
  }, 120_000);
});
