// A model that calls an MCP tool it has not loaded (known from the cache, registered, not active) in
// the real Pi: Pi refuses it before any extension runs; the tool is loaded for the next request and
// the model reads that one more call runs it (issue 36). A name no server provides keeps Pi's answer.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { toolNames } from './harness/fake-llm.ts';
import {
  BUILTINS,
  EXTENSION,
  FIXTURE_TOOLS,
  killMarked,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
  writeWarmCache,
} from './harness/mcp.ts';
import { runPiJson } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

type ChatBody = Parameters<typeof toolNames>[0];

let world: World | undefined;
let marker = '';
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  killMarked(marker);
});

describe('a call of a known tool that is not loaded', () => {
  it('is loaded for the next request, and the model reads that calling it again runs it', async () => {
    marker = uniqueMarker('unloaded');
    world = await createWorld({
      mcpJson: { mcpServers: { fx: stdioEntry(marker) } },
      script: [
        { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:fx__echo' } }] },
        // The model then calls fx__add, which it knows of from ToolSearch's description, without loading it.
        { toolCalls: [{ id: 'call_add', name: 'fx__add', arguments: { a: 2, b: 40 } }] },
        { toolCalls: [{ id: 'call_add2', name: 'fx__add', arguments: { a: 2, b: 40 } }] },
        { text: '42' },
      ],
    });
    await writeWarmCache(world.dir, { fx: [FIXTURE_TOOLS.echo, FIXTURE_TOOLS.add] });
    // Four model requests: more than the harness's default time on a busy machine.
    const run = await runPiJson({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Add 2 and 40',
      timeoutMs: 90_000,
    });

    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const bodies = world.llm.requests.map((r) => r.body as Parameters<typeof toolNames>[0]);
    expect(bodies).toHaveLength(4);
    const [, second, third, fourth] = bodies as [unknown, ChatBody, ChatBody, ChatBody];
    expect(toolNames(second)).toEqual([...BUILTINS, TOOL_SEARCH, 'fx__echo']);
    expect(toolResultFor(third, 'call_add')).toBe(
      'MCP tool fx__add was not loaded, so this call did not run. It is loaded now: call fx__add again with the same arguments.',
    );
    expect(toolNames(third).sort()).toEqual([...BUILTINS, TOOL_SEARCH, 'fx__add', 'fx__echo'].sort());
    expect(toolResultFor(fourth, 'call_add2')).toBe('42');
    // The session itself counts it as loaded: it stays declared.
    expect(toolNames(fourth)).toContain('fx__add');
  }, 120_000);

  it('a name no server provides keeps Pi’s own answer', async () => {
    marker = uniqueMarker('unknown');
    world = await createWorld({
      mcpJson: { mcpServers: { fx: stdioEntry(marker) } },
      script: [{ toolCalls: [{ id: 'call_x', name: 'fx__nope', arguments: {} }] }, { text: 'no' }],
    });
    await writeWarmCache(world.dir, { fx: [FIXTURE_TOOLS.echo, FIXTURE_TOOLS.add] });
    const run = await runPiJson({ dir: world.dir, extensions: [EXTENSION], prompt: 'Do it' });
    expect(run.code, run.stderr).toBe(0);
    const second = world.llm.requests[1]!.body as Parameters<typeof toolResultFor>[0];
    expect(toolResultFor(second, 'call_x')).toBe('Tool fx__nope not found');
  });
});
