// Our extension in the real Pi: what the model sees on turn one, and ToolSearch loading tools (by
// keywords and by `select:`) that the very next request declares with full schemas and that really
// run against a stdio fixture server.
import { resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stopHostsUnder } from '../support/hosts.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { toolDeclaration, toolNames } from './harness/fake-llm.ts';
import {
  addedTools,
  BUILTIN_MCP_TOOL,
  BUILTINS,
  EXTENSION,
  FIXTURE_TOOLS,
  killMarked,
  lastToolResult,
  loadedByToolSearch,
  markedProcesses,
  stdioEntry,
  TOOL_SEARCH,
  threeRequests,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import type { ProcInfo } from './harness/processes.ts';
import { type PiRecord, runPiJson } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const everythingBin = resolve(import.meta.dirname, '../../node_modules/.bin/mcp-server-everything');

let world: World | undefined;
let marker = '';
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  killMarked(marker);
});

function toolEnd(events: PiRecord[], toolCallId: string): PiRecord | undefined {
  return events.find((e) => e.type === 'tool_execution_end' && e.toolCallId === toolCallId);
}

describe('ToolSearch in the real Pi', () => {
  it('turn one is builtins + ToolSearch; a keyword search loads full schemas for the next request; the call reaches the stdio server', async () => {
    marker = uniqueMarker('search');
    let serversDuringRun: ProcInfo[] = [];
    world = await createWorld({
      mcpJson: {
        mcpServers: {
          // Pi's built-in format; `codemode` exposure (Pi's codemode tool activated) is in codemode.test.ts.
          fx: stdioEntry(marker, [], { exposure: 'deferred' }),
          everything: { command: everythingBin, args: ['stdio'] },
        },
      },
      script: [
        { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'echo text back' } }] },
        // The model calls the echo tool that ToolSearch reported as loaded.
        (body) => {
          const echo = loadedByToolSearch(lastToolResult(body)).find((n) => n === 'fx__echo');
          if (!echo) throw new Error(`fx__echo was not loaded: ${lastToolResult(body)}`);
          return { toolCalls: [{ id: 'call_echo', name: echo, arguments: { text: 'hello from e2e' } }] };
        },
        () => {
          serversDuringRun = markedProcesses(marker);
          return { text: 'The server echoed it.' };
        },
      ],
    });

    const run = await runPiJson({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Echo "hello from e2e" with an MCP tool',
    });

    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const [first, second, third] = threeRequests(world.llm);

    // Turn one: Pi's builtins and ToolSearch only — no deferred tool, nothing of Pi's built-in MCP.
    expect(toolNames(first)).toEqual([...BUILTINS, TOOL_SEARCH]);
    expect(toolNames(first).filter((n) => BUILTIN_MCP_TOOL.test(n))).toEqual([]);
    expect(toolDeclaration(first, TOOL_SEARCH)?.function.parameters).toMatchObject({
      required: ['query'],
      properties: { query: { type: 'string' } },
    });

    // The search answered with what it loaded, and exactly those tools are new in the next request.
    const searchText = toolResultFor(second, 'call_search')!;
    const loaded = loadedByToolSearch(searchText);
    expect(loaded).toContain('fx__echo');
    expect(addedTools(second, first)).toEqual(loaded);
    expect(toolNames(second).filter((n) => BUILTIN_MCP_TOOL.test(n))).toEqual([]);
    // Full schema and description, exactly as the server lists them.
    expect(toolDeclaration(second, 'fx__echo')?.function).toEqual({
      name: 'fx__echo',
      description: FIXTURE_TOOLS.echo.description,
      parameters: FIXTURE_TOOLS.echo.inputSchema,
    });

    // The call ran in the fixture server and its answer is what the model reads next.
    expect(toolResultFor(third, 'call_echo')).toBe('hello from e2e');
    expect(toolEnd(run.events, 'call_search')).toMatchObject({ toolName: TOOL_SEARCH, isError: false });
    expect(toolEnd(run.events, 'call_echo')).toMatchObject({ toolName: 'fx__echo', isError: false });

    // The server ran as a process while Pi did, and did not outlive it.
    expect(serversDuringRun).toHaveLength(1);
    // The server ran in the shared host the session started: nothing is left once it stops.
    await stopHostsUnder(world!.dir.root);
    expect(markedProcesses(marker)).toEqual([]);
  });

  it('select: loads exactly the named tools, says which names are unknown, and the call works', async () => {
    marker = uniqueMarker('select');
    world = await createWorld({
      mcpJson: { mcpServers: { fx: stdioEntry(marker) } },
      script: [
        {
          toolCalls: [
            { id: 'call_select', name: TOOL_SEARCH, arguments: { query: 'select:fx__add,fx__nope' } },
          ],
        },
        { toolCalls: [{ id: 'call_add', name: 'fx__add', arguments: { a: 2, b: 40 } }] },
        { text: '42' },
      ],
    });

    const run = await runPiJson({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Add 2 and 40',
    });

    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const [first, second, third] = threeRequests(world.llm);
    expect(toolNames(first)).toEqual([...BUILTINS, TOOL_SEARCH]);
    const answer = toolResultFor(second, 'call_select')!;
    expect(loadedByToolSearch(answer)).toEqual(['fx__add']);
    expect(answer).toContain('Unknown tool names (not loaded): fx__nope.');
    expect(addedTools(second, first)).toEqual(['fx__add']);
    expect(toolDeclaration(second, 'fx__add')?.function.parameters).toEqual(FIXTURE_TOOLS.add.inputSchema);
    expect(toolResultFor(third, 'call_add')).toBe('42');
    expect(toolEnd(run.events, 'call_add')).toMatchObject({ toolName: 'fx__add', isError: false });
    // The server ran in the shared host the session started: nothing is left once it stops.
    await stopHostsUnder(world!.dir.root);
    expect(markedProcesses(marker)).toEqual([]);
  });
});
