// A tool that must run as a task (server-everything's `simulate-research-query`, 2025-11-25 Tasks) in
// the real Pi: the call runs as a task, its status messages show as progress while it runs, the
// result comes back, and Esc (RPC `abort`) cancels a second run.
import { resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { abortLongCall } from './harness/abort-long-call.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, TOOL_SEARCH, toolResultFor } from './harness/mcp.ts';
import { startPiRpc } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const everythingBin = resolve(import.meta.dirname, '../../node_modules/.bin/mcp-server-everything');
const TOOL = 'everything__simulate-research-query';

let world: World | undefined;
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe('a task-required tool in the real Pi', () => {
  it('runs as a task with its status as progress; Esc cancels the next one', async () => {
    world = await createWorld({
      mcpJson: {
        mcpServers: { everything: { command: everythingBin, args: ['stdio'], lifecycle: 'eager' } },
      },
      script: [
        { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: `select:${TOOL}` } }] },
        { toolCalls: [{ id: 'call_task', name: TOOL, arguments: { topic: 'actors' } }] },
        { text: 'researched' },
        { toolCalls: [{ id: 'call_again', name: TOOL, arguments: { topic: 'cancelled' } }] },
      ],
    });
    const rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION] });
    try {
      const first = await rpc.promptAndWait('Research actors', { timeoutMs: 60_000 });
      expect(world.llm.errors).toEqual([]);
      const updates = first.records.filter(
        (r) => r.type === 'tool_execution_update' && r.toolCallId === 'call_task',
      );
      expect(JSON.stringify(updates)).toMatch(/Gathering sources/);
      const result = toolResultFor(world.llm.requests[2]!.body, 'call_task') ?? '';
      expect(result).toMatch(/actors/);

      const { settled, end, abortMs } = await abortLongCall(rpc, 'Once more', 'call_again');
      expect(settled.aborted).toBe(true);
      // The task takes 4 s; the abort does not wait for it.
      expect(abortMs).toBeLessThan(3_000);
      expect(end?.isError).toBe(true);
      expect((await rpc.close()).code).toBe(0);
    } finally {
      rpc.kill();
    }
  }, 120_000);
});
