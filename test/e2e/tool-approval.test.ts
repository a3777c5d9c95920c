// approveTools in the real Pi (RPC mode): the approval dialog arrives as an extension_ui_request that
// the test answers like a client UI; Allow once runs the call, Deny returns the clear error. In
// JSON mode (no UI) the call fails closed.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import {
  EXTENSION,
  killMarked,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import { type PiRecord, runPiJson, startPiRpc, type UiAnswer } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const TOOL = 'fx__echo';
let world: World | undefined;
let marker = '';
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  killMarked(marker);
});

const script = [
  { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: `select:${TOOL}` } }] },
  { toolCalls: [{ id: 'call_first', name: TOOL, arguments: { text: 'first call' } }] },
  { toolCalls: [{ id: 'call_second', name: TOOL, arguments: { text: 'second call' } }] },
  { text: 'done' },
];

async function guardedWorld() {
  marker = uniqueMarker('approval');
  return createWorld({
    mcpJson: { mcpServers: { fx: stdioEntry(marker, [], { approveTools: ['echo'] }) } },
    script,
  });
}

const isApproval = (r: PiRecord) =>
  r.type === 'extension_ui_request' && r.method === 'select' && String(r.title).includes('approveTools');

describe('approveTools in the real Pi', () => {
  it('RPC mode: Allow once runs the call, Deny returns the clear error', async () => {
    world = await guardedWorld();
    const answers = ['Allow once', 'Deny'];
    const rpc = await startPiRpc({
      dir: world.dir,
      extensions: [EXTENSION],
      onDialog: (request): UiAnswer | undefined =>
        isApproval(request) ? { value: answers.shift()! } : undefined,
    });
    try {
      await rpc.promptAndWait('Echo twice', { timeoutMs: 120_000 });
    } finally {
      await rpc.close();
    }
    expect(world.llm.errors).toEqual([]);
    const dialogs = rpc.records.filter(isApproval);
    expect(dialogs).toHaveLength(2);
    expect(dialogs[0]).toMatchObject({
      title: 'MCP server "fx" tool echo wants to run (approveTools). Allow it?\n{"text":"first call"}',
      options: ['Allow once', 'Allow for this session', 'Allow this server for this session', 'Deny'],
    });
    expect(toolResultFor(world.llm.requests[2]!.body, 'call_first')).toContain('first call');
    expect(toolResultFor(world.llm.requests[3]!.body, 'call_second')).toMatch(
      /^The user denied the call to fx__echo \(MCP server "fx"\); it did not run/,
    );
  }, 180_000);

  it('JSON mode has no UI: the call fails closed and says how to allow it', async () => {
    world = await guardedWorld();
    const run = await runPiJson({ dir: world.dir, extensions: [EXTENSION], prompt: 'Echo twice' });
    expect(run.code, run.stderr).toBe(0);
    const result = toolResultFor(world.llm.requests[2]!.body, 'call_first') ?? '';
    expect(result).toContain(
      `${TOOL} needs the user's approval before it runs ("approveTools" of server "fx"`,
    );
    expect(result).toContain('no interactive UI');
  }, 180_000);
});
