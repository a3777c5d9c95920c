// The metadata cache in the real Pi: a cold session connects to learn the tools and writes
// <agentDir>/mcp-cache.json; the next session declares the direct tool on turn one from that cache,
// starts no server process until the first call (lazy connect), and that call starts exactly one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, toolDeclaration, toolNames } from './harness/fake-llm.ts';
import {
  BUILTINS,
  EXTENSION,
  FIXTURE_TOOLS,
  killMarked,
  loadedByToolSearch,
  markedProcesses,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import { descendantsOf, isRunning, type ProcInfo } from './harness/processes.ts';
import { type PiRunResult, runPiPrint, startPiRpc } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const SECRET = 'e2e-secret-value-7f3a';
const marker = uniqueMarker('cache');
let world: World;
let cold: PiRunResult;
let coldRequests: ChatRequestBody[];

beforeAll(async () => {
  await ensurePi();
  world = await createWorld({
    script: [
      { toolCalls: [{ id: 'call_cold_search', name: TOOL_SEARCH, arguments: { query: 'select:fx__add' } }] },
      { text: 'cold session done' },
    ],
    mcpJson: {
      // The server process a warm session starts is counted below Pi: it runs in the session.
      settings: { sharedHost: false },
      mcpServers: { fx: stdioEntry(marker, [], { directTools: ['echo'], env: { FIXTURE_SECRET: SECRET } }) },
    },
  });
  cold = await runPiPrint({ dir: world.dir, extensions: [EXTENSION], prompt: 'Warm up' });
  coldRequests = world.llm.requests.map((r) => r.body);
}, ENSURE_PI_TIMEOUT_MS);

afterAll(async () => {
  await world?.cleanup();
  killMarked(marker);
});

describe('metadata cache and direct tools in the real Pi', () => {
  it('a cold session learns the tools by connecting, then writes a cache without secrets', () => {
    expect(cold.code, cold.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const [first, second] = coldRequests as [ChatRequestBody, ChatRequestBody];
    // No deferred tool on turn one. (The direct tool is there only if the server, unknown so far,
    // finished connecting before the first request, so this cold turn does not pin it down.)
    expect(toolNames(first).filter((n) => n !== 'fx__echo')).toEqual([...BUILTINS, TOOL_SEARCH]);
    expect(loadedByToolSearch(toolResultFor(second, 'call_cold_search')!)).toEqual(['fx__add']);
    // Once connected, the direct tool is active as well as the one that was searched for.
    expect(
      toolNames(second)
        .filter((n) => n.startsWith('fx__'))
        .sort(),
    ).toEqual(['fx__add', 'fx__echo']);

    const text = readFileSync(join(world.dir.agentDir, 'mcp-cache.json'), 'utf8');
    const cache = JSON.parse(text);
    expect(cache.version).toBe(1);
    expect(cache.servers.fx.configHash).toMatch(/^[0-9a-f]{64}$/);
    expect(cache.servers.fx.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'add', 'progress']),
    );
    expect(text).not.toContain(SECRET);
    expect(markedProcesses(marker)).toEqual([]);
  });

  it('a warm session declares the direct tool on turn one and starts one server process at the first call', async () => {
    const base = world.llm.requests.length;
    let atFirstRequest: ProcInfo[] | undefined;
    world.llm.push(
      () => {
        atFirstRequest = markedProcesses(marker);
        return { toolCalls: [{ id: 'call_direct', name: 'fx__echo', arguments: { text: 'lazy hello' } }] };
      },
      { text: 'echoed' },
    );
    const rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION] });
    try {
      // The session is running and its tools are registered from the cache: still no process.
      expect(markedProcesses(marker)).toEqual([]);
      await rpc.promptAndWait('Echo "lazy hello"');
      expect(world.llm.errors).toEqual([]);
      const [first, second] = world.llm.requests.slice(base).map((r) => r.body) as [
        ChatRequestBody,
        ChatRequestBody,
      ];
      expect(atFirstRequest).toEqual([]);
      // session_start registers ToolSearch, then the tools (direct ones active): that is their order.
      expect(toolNames(first)).toEqual([...BUILTINS, TOOL_SEARCH, 'fx__echo']);
      expect(toolDeclaration(first, 'fx__echo')?.function.parameters).toEqual(FIXTURE_TOOLS.echo.inputSchema);
      // The description knows the server's tool count from the cache (a cold session says `fx (?)`).
      expect(toolDeclaration(first, TOOL_SEARCH)?.function.description).toMatch(/\bfx \(\d+\)/);
      expect(toolResultFor(second, 'call_direct')).toBe('lazy hello');

      const servers = descendantsOf(rpc.pid).filter((p) => p.cmdline.includes(marker));
      expect(servers).toHaveLength(1);
      const status = await rpc.runCommand('/mcp');
      expect(status.notifications.map((n) => n.message).join('\n')).toMatch(
        /^fx: connected — lazy, stdio, \d+ tools/m,
      );

      expect((await rpc.close()).code).toBe(0);
      expect(isRunning(servers[0]!.pid)).toBe(false);
    } finally {
      rpc.kill();
    }
  });
});
