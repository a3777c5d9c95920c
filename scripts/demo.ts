// `npm run demo`: the real Pi, headless, with this extension, the bundled notes MCP server
// (examples/mcp.json) and a scripted model on 127.0.0.1 — no LLM account, no MCP server of your own.
// Prints what the model was offered on each turn (with o200k token counts), the ToolSearch call and
// what it activated, the MCP tool call and its result, the final answer, and `/mcp`.
// Everything runs in a temporary agent dir that is removed at the end; Pi is provisioned on first use.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';
import { ensurePi } from '../test/e2e/harness/ensure-pi.ts';
import {
  type ChatRequestBody,
  type ChatTool,
  toolNames,
  toolResultMessages,
} from '../test/e2e/harness/fake-llm.ts';
import { addedTools, loadedByToolSearch, TOOL_SEARCH } from '../test/e2e/harness/mcp.ts';
import { descendantsOf, isRunning } from '../test/e2e/harness/processes.ts';
import { type PiRpc, startPiRpc } from '../test/e2e/harness/run-pi.ts';
import { createWorld, type World } from '../test/e2e/harness/world.ts';
import { isHostCommand } from '../test/support/hosts.ts';
import { PI_VERSIONS, repoRoot } from './pi-paths.mjs';

const PROMPT =
  'Save a note titled "MCP in Pi" saying: pi-mcp-actors gives every MCP server its own actor, ' +
  'and the model finds the tools it needs with ToolSearch.';
const NOTE = {
  title: 'MCP in Pi',
  text: 'pi-mcp-actors gives every MCP server its own actor, and the model finds the tools it needs with ToolSearch.',
  tags: ['demo'],
};

const encoder = new Tiktoken(o200k_base);
const tokensOf = (tool: ChatTool) => encoder.encode(JSON.stringify(tool)).length;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

const out: string[] = [];
const say = (line = '') => out.push(line);
const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((l) => by + l)
    .join('\n');
const heading = (text: string) => {
  say();
  say(`── ${text} ${'─'.repeat(Math.max(3, 96 - text.length))}`);
};

/** examples/mcp.json with its paths made absolute, the notes file in the temp dir. */
function exampleConfig(notesFile: string): unknown {
  const config = JSON.parse(readFileSync(join(repoRoot, 'examples', 'mcp.json'), 'utf8')) as {
    mcpServers: Record<
      string,
      { command: string; args?: string[]; cwd?: string; env?: Record<string, string> }
    >;
  };
  for (const server of Object.values(config.mcpServers)) {
    const cwd = resolve(repoRoot, server.cwd ?? '.');
    server.cwd = cwd;
    if (server.command === 'node') server.command = process.execPath;
    server.args = (server.args ?? []).map((a) =>
      a.startsWith('./') || a.startsWith('../') ? resolve(cwd, a) : a,
    );
    server.env = { ...server.env, NOTES_FILE: notesFile };
  }
  return config;
}

/** `name(a: string, b?: number)` from a JSON schema, for a one-line view of an activated tool. */
function signature(tool: ChatTool): string {
  const schema = (tool.function.parameters ?? {}) as {
    properties?: Record<string, { type?: string; items?: { type?: string } }>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  const params = Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const type = p.type === 'array' ? `${p.items?.type ?? 'any'}[]` : (p.type ?? 'any');
    return `${name}${required.has(name) ? '' : '?'}: ${type}`;
  });
  return `${tool.function.name}(${params.join(', ')})`;
}

function lastToolText(body: ChatRequestBody): string {
  return toolResultMessages(body).at(-1)?.content ?? '';
}

/** The scripted model: search, call what the search found, answer with the tool's result. */
function script() {
  return [
    { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'add note' } }] },
    (body: ChatRequestBody) => {
      const add = loadedByToolSearch(lastToolText(body)).find((n) => n.endsWith('__add_note'));
      if (!add) throw new Error(`ToolSearch did not load add_note:\n${lastToolText(body)}`);
      return { toolCalls: [{ id: 'call_add', name: add, arguments: NOTE }] };
    },
    (body: ChatRequestBody) => ({ text: `Done. The notes server answered: ${lastToolText(body)}` }),
  ];
}

/** Tools the notes server offers, as full declarations, from the metadata cache Pi's session wrote. */
function allMcpDeclarations(agentDir: string): ChatTool[] {
  const file = join(agentDir, 'mcp-cache.json');
  if (!existsSync(file)) return [];
  const cache = JSON.parse(readFileSync(file, 'utf8')) as {
    servers?: Record<string, { tools?: { name: string; description?: string; inputSchema?: unknown }[] }>;
  };
  return Object.entries(cache.servers ?? {}).flatMap(([server, entry]) =>
    (entry.tools ?? []).map((t) => ({
      type: 'function' as const,
      function: {
        name: `${server}__${t.name}`,
        description: t.description ?? '',
        parameters: t.inputSchema as Record<string, unknown>,
      },
    })),
  );
}

function printTranscript(
  world: World,
  statusText: string,
  answer: string,
  stoppedCleanly: boolean | undefined,
  hostPid: number | undefined,
) {
  const bodies = world.llm.requests.map((r) => r.body);
  const [first, second, third] = bodies as [ChatRequestBody, ChatRequestBody, ChatRequestBody];
  const steps = world.llm.requests.map((r) => r.step);

  say('pi-mcp-actors demo');
  say(
    `    Pi ${PI_VERSIONS.pi} on Node ${PI_VERSIONS.node}, headless (RPC mode), scripted model at ${world.llm.baseUrl}`,
  );
  say(`    extension: -e ${repoRoot}`);
  say(`    MCP config: examples/mcp.json (server "notes": examples/notes-server.ts), temp agent dir`);

  heading('User');
  say(indent(PROMPT));

  const firstTools = first.tools ?? [];
  const firstCounts = firstTools.map(tokensOf);
  heading(
    `Turn 1: ${firstTools.length} tools offered, ${sum(firstCounts)} tokens (o200k, JSON of each declaration)`,
  );
  firstTools.forEach((tool, i) => {
    say(`    ${tool.function.name.padEnd(22)} ${String(firstCounts[i]).padStart(5)} tokens`);
  });
  const search = firstTools.find((t) => t.function.name === TOOL_SEARCH);
  if (search) {
    say('    ToolSearch description:');
    say(indent(search.function.description ?? '', '      │ '));
  }
  const mcpOnTurnOne = toolNames(first).filter((n) => n.includes('__'));
  say(
    mcpOnTurnOne.length === 0
      ? '    No MCP tool is declared: every one waits behind ToolSearch.'
      : `    MCP tools declared directly: ${mcpOnTurnOne.join(', ')}`,
  );

  const searchCall = steps[0] && 'toolCalls' in steps[0] ? steps[0].toolCalls?.[0] : undefined;
  heading(`Model calls ${TOOL_SEARCH}`);
  say(`    ${TOOL_SEARCH}(${JSON.stringify(searchCall?.arguments ?? {})})`);
  heading(`${TOOL_SEARCH} result (what the model reads)`);
  say(indent(lastToolText(second)));

  const activated = addedTools(second, first);
  const activatedTools = (second.tools ?? []).filter((t) => activated.includes(t.function.name));
  const activatedCounts = activatedTools.map(tokensOf);
  heading(`Turn 2: activated ${activated.length} tool(s), +${sum(activatedCounts)} tokens, full schemas`);
  activatedTools.forEach((tool, i) => {
    say(`    ${signature(tool).padEnd(70)} ${String(activatedCounts[i]).padStart(5)} tokens`);
  });

  const call = steps[1] && 'toolCalls' in steps[1] ? steps[1].toolCalls?.[0] : undefined;
  heading(`Model calls ${call?.name ?? '(no call)'}`);
  say(`    ${call?.name}(${JSON.stringify(call?.arguments ?? {})})`);
  heading(`${call?.name} result (from the notes server, over stdio)`);
  say(indent(third ? lastToolText(third) : '(none)'));

  heading('Final answer');
  say(indent(answer));

  heading('/mcp');
  say(indent(statusText));

  const all = allMcpDeclarations(world.dir.agentDir);
  if (all.length > 0) {
    const allTokens = sum(all.map(tokensOf));
    const searchTokens = search ? tokensOf(search) : 0;
    heading('Tokens');
    say(`    All ${all.length} MCP tools declared up front would cost ${allTokens} tokens on every request.`);
    say(`    ToolSearch costs ${searchTokens}; a loaded tool costs its own schema, only once it is needed.`);
  }
  if (stoppedCleanly !== undefined) {
    say();
    if (!stoppedCleanly) say('WARNING: a server Pi ran itself outlived it.');
    else if (hostPid !== undefined)
      say(
        `Pi exited; the notes server stays warm in the shared host (pid ${hostPid}) for the next session, until it idles out (here: until the temporary agent dir is removed).`,
      );
    else say('Pi exited and the notes server stopped with it.');
  }
}

async function main(): Promise<number> {
  const started = Date.now();
  await ensurePi();
  let world: World | undefined;
  let rpc: PiRpc | undefined;
  try {
    world = await createWorld({ script: script() });
    const configFile = join(world.dir.root, 'mcp.json');
    writeFileSync(
      configFile,
      `${JSON.stringify(exampleConfig(join(world.dir.root, 'notes.json')), null, 2)}\n`,
    );

    rpc = await startPiRpc({ dir: world.dir, extensions: [repoRoot], args: ['--mcp-config', configFile] });
    const turn = await rpc.promptAndWait(PROMPT, { timeoutMs: 60_000 });
    const hasProc = existsSync('/proc');
    const below = hasProc ? descendantsOf(rpc.pid).filter((p) => p.state !== 'Z') : [];
    // The shared host Pi started (detached, so below Pi only while Pi runs) keeps its servers warm.
    const host = below.find((p) => isHostCommand(p.cmdline));
    const inHost = host ? new Set(descendantsOf(host.pid).map((p) => p.pid)) : new Set<number>();
    const servers = below.filter((p) => p !== host && !inHost.has(p.pid));
    const status = await rpc.runCommand('/mcp');
    const answer = await rpc.send({ type: 'get_last_assistant_text' });
    const exit = await rpc.close();

    const failures: string[] = [...world.llm.errors];
    if (!turn.response.success) failures.push(`prompt failed: ${turn.response.error}`);
    if (exit.code !== 0) failures.push(`Pi exited with ${exit.code ?? exit.signal}`);
    if (world.llm.requests.length < 3)
      failures.push(`the model was asked ${world.llm.requests.length} times, not 3`);
    if (failures.length > 0) {
      process.stderr.write(`demo failed:\n${failures.join('\n')}\nPi stderr:\n${rpc.stderr}\n`);
      return 1;
    }
    printTranscript(
      world,
      status.notifications.map((n) => n.message).join('\n'),
      String(answer.data?.text ?? ''),
      hasProc ? servers.every((p) => !isRunning(p.pid)) : undefined,
      host?.pid,
    );
    say(`Done in ${((Date.now() - started) / 1000).toFixed(1)} s; the temporary agent dir is removed.`);
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  } finally {
    rpc?.kill();
    await world?.cleanup();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
    process.exitCode = 1;
  },
);
