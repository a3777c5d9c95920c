// Pi's own tool model in the real Pi: a server with `exposure: "codemode"` gets Pi's `codemode` tool
// activated next to ToolSearch, its tools stay undeclared, and a codemode script calls one of them
// (through ctx.executeTool) and gets its text result. The tools carry Pi's exposure, namespace and
// the MCP annotations their server declared.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopHostsUnder } from '../support/hosts.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, toolNames } from './harness/fake-llm.ts';
import {
  BUILTINS,
  EXTENSION,
  FIXTURE_TOOLS,
  killMarked,
  markedProcesses,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
  writeWarmCache,
} from './harness/mcp.ts';
import { type PiRunResult, runPiJson } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const marker = uniqueMarker('codemode');
const SCRIPT = [
  'const sum = await tools.fx__add({ a: 2, b: 40 });',
  'const ns = await describeNamespace("fx");',
  'return "sum=" + sum + " tools=" + ns.tools.length;',
].join('\n');
let world: World;
let run: PiRunResult & { events: Array<{ type: string; [key: string]: any }> };
let requests: ChatRequestBody[];

beforeAll(async () => {
  await ensurePi();
  world = await createWorld({
    script: [
      { toolCalls: [{ id: 'call_script', name: 'codemode', arguments: { code: SCRIPT } }] },
      { text: 'script done' },
    ],
    mcpJson: { mcpServers: { fx: stdioEntry(marker, [], { exposure: 'codemode' }) } },
  });
  // Known tools from the cache: the session registers them without starting the server.
  await writeWarmCache(world.dir, { fx: [FIXTURE_TOOLS.echo, FIXTURE_TOOLS.add] });
  run = await runPiJson({ dir: world.dir, extensions: [EXTENSION], prompt: 'Add 2 and 40 in a script' });
  requests = world.llm.requests.map((r) => r.body);
}, ENSURE_PI_TIMEOUT_MS);

afterAll(async () => {
  await world?.cleanup();
  killMarked(marker);
});

describe("Pi's codemode reaches our MCP tools", () => {
  it('activates codemode next to ToolSearch and leaves the MCP tools undeclared', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const first = requests[0] as ChatRequestBody;
    expect(toolNames(first)).toEqual(expect.arrayContaining([...BUILTINS, TOOL_SEARCH, 'codemode']));
    expect(toolNames(first).filter((n) => n.startsWith('fx__'))).toEqual([]);
  });

  it('a codemode script calls an MCP tool and reads its namespace', async () => {
    const result = toolResultFor(requests[1] as ChatRequestBody, 'call_script');
    expect(result).toContain('Script completed');
    expect(result).toContain('sum=42 tools=2');
    // The nested call went through Pi's tool pipeline, as a call of our tool.
    const nested = run.events.filter(
      (e) =>
        e.type === 'tool_execution_end' && e.toolName === 'fx__add' && e.parentToolCallId === 'call_script',
    );
    expect(nested).toHaveLength(1);
    expect(nested[0]?.isError).toBe(false);
    // The server ran in the shared host the session started: nothing is left once it stops.
    await stopHostsUnder(world.dir.root);
    expect(markedProcesses(marker)).toEqual([]);
  });
});
