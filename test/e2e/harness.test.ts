// Smoke test of the e2e harness against the real Pi, with a throwaway echo extension.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, toolDeclaration, toolNames, toolResultMessages } from './harness/fake-llm.ts';
import { descendantsOf, isRunning } from './harness/processes.ts';
import { runPiJson, runPiPrint, startPiRpc } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const echoExtension = resolve(import.meta.dirname, 'fixtures/echo-extension.ts');
const everythingBin = resolve(import.meta.dirname, '../../node_modules/.bin/mcp-server-everything');
const BUILTINS = ['read', 'bash', 'edit', 'write'];

function readProbes(file: string): { kind: string; [key: string]: any }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

const echoCall = { toolCalls: [{ id: 'call_echo_1', name: 'echo_tool', arguments: { text: 'hello pi' } }] };

let world: World | undefined;
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe('e2e harness on the real Pi', () => {
  it('print mode: the tool is declared, called, its result reaches the next request, stdout is the final text', async () => {
    world = await createWorld({ script: [echoCall, { text: 'The echo said HELLO PI.' }] });
    const probes = world.file('probes.jsonl');
    const run = await runPiPrint({
      dir: world.dir,
      extensions: [echoExtension],
      prompt: 'Please echo hello pi',
      env: { ECHO_EXT_LOG: probes },
    });

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('The echo said HELLO PI.\n');
    expect(world.llm.errors).toEqual([]);
    expect(world.llm.requests).toHaveLength(2);
    const [first, second] = world.llm.requests.map((r) => r.body) as [ChatRequestBody, ChatRequestBody];
    expect(toolNames(first)).toEqual([...BUILTINS, 'echo_tool']);
    expect(toolDeclaration(first, 'echo_tool')?.function.parameters).toMatchObject({
      required: ['text'],
      properties: { text: { type: 'string' } },
    });
    expect(toolResultMessages(second)).toEqual([{ toolCallId: 'call_echo_1', content: 'ECHO: HELLO PI' }]);
    // What an extension sees at session_start is exactly what turn one declares.
    const start = readProbes(probes).find((p) => p.kind === 'session_start');
    expect(start).toMatchObject({ reason: 'startup', mode: 'print', hasUI: false, mcpServers: [] });
    expect(start?.activeTools).toEqual(toolNames(first));
    expect(readProbes(probes).at(-1)).toEqual({ kind: 'session_shutdown', reason: 'quit' });
  });

  it('JSON mode: the event stream is parsed, tool execution and settling are visible', async () => {
    world = await createWorld({ script: [echoCall, { text: 'done' }] });
    const run = await runPiJson({
      dir: world.dir,
      extensions: [echoExtension],
      prompt: 'Please echo hello pi',
    });

    expect(run.code).toBe(0);
    expect(run.unparsed).toEqual([]);
    expect(run.events[0]).toMatchObject({ type: 'session' });
    const end = run.events.find((e) => e.type === 'tool_execution_end');
    expect(end).toMatchObject({
      toolCallId: 'call_echo_1',
      toolName: 'echo_tool',
      isError: false,
      result: { content: [{ type: 'text', text: 'ECHO: HELLO PI' }] },
    });
    expect(run.events.at(-1)).toMatchObject({ type: 'agent_settled', aborted: false });
  });

  it('RPC mode: lists and runs an extension slash command, then a prompt round-trip', async () => {
    world = await createWorld({ script: [{ text: 'rpc reply' }] });
    const rpc = await startPiRpc({ dir: world.dir, extensions: [echoExtension] });

    const commands = await rpc.send({ type: 'get_commands' });
    expect(commands.data.commands).toContainEqual(
      expect.objectContaining({ name: 'echo-status', source: 'extension' }),
    );
    const status = await rpc.runCommand('/echo-status some args');
    expect(status.response).toMatchObject({ success: true, data: { disposition: 'handled' } });
    expect(status.notifications).toEqual([
      {
        message: `echo-status args="some args" active=${[...BUILTINS, 'echo_tool'].join(',')}`,
        level: 'info',
      },
    ]);
    expect(world.llm.requests).toHaveLength(0);

    const turn = await rpc.promptAndWait('hello');
    expect(turn.response.data).toEqual({ disposition: 'started' });
    const last = await rpc.send({ type: 'get_last_assistant_text' });
    expect(last.data).toEqual({ text: 'rpc reply' });
    expect(await rpc.close()).toEqual({ code: 0, signal: null });
  });

  it('setActiveTools inside a tool changes the tools of the very next request', async () => {
    const newTools = (body: ChatRequestBody, before: ChatRequestBody) =>
      toolNames(body).filter((n) => !toolNames(before).includes(n));
    world = await createWorld({
      script: [
        {
          toolCalls: [
            { id: 'call_1', name: 'echo_tool', arguments: { text: 'x', activate: ['echo_hidden'] } },
          ],
        },
        // The model calls whatever the previous tool call just revealed.
        (body) => {
          const revealed = newTools(body, world!.llm.requests[0]!.body);
          return {
            toolCalls: revealed.map((name, i) => ({ id: `call_2_${i}`, name, arguments: { text: 'abc' } })),
          };
        },
        { text: 'done' },
      ],
    });
    const run = await runPiPrint({ dir: world.dir, extensions: [echoExtension], prompt: 'go' });

    expect(run.code).toBe(0);
    const bodies = world.llm.requests.map((r) => r.body);
    expect(bodies).toHaveLength(3);
    expect(toolNames(bodies[0]!)).not.toContain('echo_hidden');
    expect(newTools(bodies[1]!, bodies[0]!)).toEqual(['echo_hidden']);
    expect(toolDeclaration(bodies[1]!, 'echo_hidden')?.function.parameters).toMatchObject({
      required: ['text'],
    });
    expect(toolResultMessages(bodies[2]!).at(-1)).toEqual({ toolCallId: 'call_2_0', content: 'cba' });
  });

  it("Pi's built-in MCP spawns an mcp.json server as a child and stops it when Pi exits", async () => {
    world = await createWorld({
      script: [],
      mcpJson: { mcpServers: { everything: { command: everythingBin, args: ['stdio'] } } },
    });
    const rpc = await startPiRpc({ dir: world.dir, extensions: [echoExtension] });
    const status = await rpc.runCommand('/mcp');
    expect(status.notifications.map((n) => n.message)).toContainEqual(
      expect.stringContaining('everything: connected'),
    );
    const servers = descendantsOf(rpc.pid).filter((p) => p.cmdline.includes(everythingBin));
    expect(servers).toHaveLength(1);

    expect((await rpc.close()).code).toBe(0);
    expect(isRunning(servers[0]!.pid)).toBe(false);
  });

  it('an extension registering /mcp replaces the built-in MCP: no server process, no codemode tool', async () => {
    world = await createWorld({
      script: [{ text: 'ok' }],
      mcpJson: { mcpServers: { everything: { command: everythingBin, args: ['stdio'] } } },
    });
    const rpc = await startPiRpc({
      dir: world.dir,
      extensions: [echoExtension],
      env: { ECHO_EXT_REGISTER_MCP: '1' },
    });
    const mcp = await rpc.runCommand('/mcp list');
    expect(mcp.notifications).toEqual([{ message: 'echo-mcp args="list"', level: 'info' }]);
    await rpc.promptAndWait('hello');
    expect(toolNames(world.llm.requests[0]!.body)).toEqual([...BUILTINS, 'echo_tool']);
    expect(descendantsOf(rpc.pid)).toEqual([]);
    expect(rpc.stderr).toContain('registers command `/mcp`, so built-in extension `mcp` was not loaded');
    expect((await rpc.close()).code).toBe(0);
  });
});
