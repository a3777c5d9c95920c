// 6. Side by side in the real Pi 1.5.2: the same five real MCP servers (everything, filesystem, memory,
// github, playwright; started with Node 22 directly, no npm wrapper) and the same scripted conversation
// (search for `echo`, call it, answer) with this extension, Pi's built-in MCP (exposure `deferred`),
// pi-mcp-adapter 2.36.0 (`-e` its unpacked tarball with its own node_modules) and Pi with no MCP.
// Runs go round-robin so machine noise spreads evenly; the first round warms caches and is not counted.
// Twice: with a model that answers at once, and with one that thinks 1.5 s per turn as real ones do.
// Cold start: the first start after install (jiti transpiles the extension again), ours vs pi-mcp-adapter.

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { node22Path } from '../scripts/pi-paths.mjs';
import { type AgentDir, createAgentDir } from '../test/e2e/harness/agent-dir.ts';
import {
  type ChatRequestBody,
  messageText,
  type ScriptToolCall,
  toolResultMessages,
} from '../test/e2e/harness/fake-llm.ts';
import { stopHostsUnder } from '../test/support/hosts.ts';
import { extensionEntry } from './support/installed.ts';
import { runPiTimed, type Step } from './support/pi-run.ts';
import { ADAPTER_DIR, SERVERS_DIR, serverEntry } from './support/provision.ts';
import { median, round } from './support/stats.ts';
import { declarationTokens, tokens } from './tokens.ts';

/** Real-Pi runs per column unless `--runs=N` says otherwise. */
export const DEFAULT_PI_RUNS = 9;

export const VARIANTS = ['none', 'ours', 'oursInSession', 'builtin', 'adapter'] as const;
/** How long the thinking model of the second run takes before each answer. */
export const THINK_MS = 1_500;
export type Variant = (typeof VARIANTS)[number];

export const VARIANT_LABELS: Record<Variant, string> = {
  none: 'Pi, no MCP',
  ours: 'pi-mcp-actors (this; servers in the shared host, the default)',
  oursInSession: 'pi-mcp-actors, servers in the session (sharedHost: false)',
  builtin: 'Pi built-in MCP (deferred)',
  adapter: 'pi-mcp-adapter 2.36.0',
};

export const ECHO_TEXT = 'bench echo 42';

/** Our extension, whichever way its servers run. */
export const isOurs = (variant: Variant) => variant === 'ours' || variant === 'oursInSession';

export function serverConfig(dir: AgentDir, variant: Variant) {
  const node = (entry: string, args: string[] = [], env?: Record<string, string>) => ({
    command: node22Path,
    args: [entry, ...args],
    ...(env ? { env } : {}),
    ...(variant === 'builtin' ? { exposure: 'deferred' } : {}),
  });
  return {
    // `ours` runs them in the shared host (the default: a server stays warm there between runs, as
    // for a user's next session), `oursInSession` in each Pi session as before the host.
    ...(variant === 'oursInSession' ? { settings: { sharedHost: false } } : {}),
    mcpServers: {
      everything: node(serverEntry('everything')),
      filesystem: node(serverEntry('filesystem'), [dir.projectDir]),
      memory: node(serverEntry('memory'), [], { MEMORY_FILE_PATH: join(dir.root, 'memory.jsonl') }),
      github: node(serverEntry('github')),
      playwright: node(serverEntry('playwright'), ['--headless', '--isolated']),
    },
  };
}

const toolNamesOf = (body: ChatRequestBody | undefined) => (body?.tools ?? []).map((t) => t.function.name);

/** The name under which a variant declared `server`'s `tool` to the model (after a search found it). */
export const declaredTool = (body: ChatRequestBody | undefined, server: string, tool: string) =>
  toolNamesOf(body).find((n) => n.includes(server) && n.endsWith(tool));

/** The model's call of the variant's search tool. */
export function searchCall(variant: Variant, id: string, query: string): ScriptToolCall {
  if (isOurs(variant)) return { id, name: 'ToolSearch', arguments: { query } };
  if (variant === 'builtin') return { id, name: 'tool_search', arguments: { query } };
  return { id, name: 'mcp', arguments: { search: query } };
}

/** The scripted model for a variant: search for `echo`, call what the search found, answer. */
export function scriptFor(variant: Variant, problems: string[]): Step {
  const answer = { text: 'The echo tool answered.' };
  if (variant === 'none') return () => ({ text: 'No MCP here.' });
  return (body, index) => {
    if (index === 0) return { toolCalls: [searchCall(variant, 'call_search', 'echo')] };
    if (index === 1) {
      const names = toolNamesOf(body);
      if (variant === 'adapter') {
        const found = toolResultMessages(body)
          .map((m) => m.content)
          .join('\n');
        const name = /\beverything[_\w-]*echo\b/.exec(found)?.[0];
        if (!name) {
          problems.push(`adapter search result names no everything echo tool: ${found.slice(0, 300)}`);
          return answer;
        }
        return {
          toolCalls: [
            { id: 'call_echo', name: 'mcp', arguments: { tool: name, args: { message: ECHO_TEXT } } },
          ],
        };
      }
      const name = declaredTool(body, 'everything', 'echo');
      if (!name) {
        problems.push(
          `${variant}: no everything echo tool declared after the search (tools: ${names.join(', ')})`,
        );
        return answer;
      }
      return { toolCalls: [{ id: 'call_echo', name, arguments: { message: ECHO_TEXT } }] };
    }
    return answer;
  };
}

export interface RunFigures {
  ok: boolean;
  firstRequestMs: number;
  /** CPU time of Pi's main thread when the first request arrived (Linux; grows far less with load). */
  firstRequestCpuMs?: number;
  searchTurnMs?: number;
  callTurnMs?: number;
  /** From the last answer written to Pi's exit. */
  shutdownMs: number;
  wallMs: number;
  peakRssMb: number;
  processes: number;
  turnOne: { toolsTokens: number; systemTokens: number; tools: string[] };
}

export interface VariantResult {
  label: string;
  runs: RunFigures[];
  failures: string[];
  median: {
    firstRequestMs: number;
    firstRequestCpuMs: number;
    searchTurnMs: number;
    callTurnMs: number;
    shutdownMs: number;
    wallMs: number;
    peakRssMb: number;
    processes: number;
    toolsTokens: number;
    systemTokens: number;
  };
  /** Turn-one tokens (tools + system prompt) minus Pi's own without MCP. */
  mcpTurnOneTokens?: number;
  firstRequestDeltaMs?: number;
  firstRequestCpuDeltaMs?: number;
  shutdownDeltaMs?: number;
}

export interface SideBySideResult {
  runs: number;
  /** How long the scripted model thought before each answer. */
  thinkMs: number;
  servers: string[];
  everythingStartMs: number;
  everythingStartSamples: number[];
  variants: Partial<Record<Variant, VariantResult>>;
  leftoverProcesses: number;
  notes: string[];
}

function turnOneTokens(body: ChatRequestBody | undefined) {
  const tools = body?.tools ?? [];
  const system = body?.messages.find((m) => m.role === 'system' || m.role === 'developer');
  return {
    toolsTokens: tools.reduce(
      (n, t) => n + declarationTokens(t.function.name, t.function.description ?? '', t.function.parameters),
      0,
    ),
    systemTokens: system ? tokens(messageText(system.content)) : 0,
    tools: tools.map((t) => t.function.name),
  };
}

/** The everything server's own start: spawn + initialize + tools/list with a bare SDK client (Node 22). */
async function everythingStart(): Promise<number> {
  const client = new Client({ name: 'bench-start', version: '0.0.0' });
  const started = performance.now();
  await client.connect(
    new StdioClientTransport({ command: node22Path, args: [serverEntry('everything')], stderr: 'ignore' }),
  );
  await client.listTools();
  const ms = performance.now() - started;
  await client.close();
  return round(ms, 1);
}

/** Server processes (from the bench install) still alive: ended by pid, counted as a finding. */
export function endLeftovers(): number {
  let found = 0;
  const hosts = hostPids();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmd.includes(SERVERS_DIR)) continue;
      // The shared host's servers outlive the session by design (stopped with the run's agent dirs).
      if (hosts.has(parentOf(entry))) continue;
      found++;
      process.kill(Number(entry), 'SIGKILL');
    } catch {
      // gone
    }
  }
  return found;
}

/** Running shared hosts (their title, or `… host serve` while starting). */
function hostPids(): Set<number> {
  const pids = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.startsWith('pi-mcp-actors-host') || cmd.includes('pi-mcp-actors.mjs\0host\0serve'))
        pids.add(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

function parentOf(pid: string): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

export async function runSideBySide(
  runs: number,
  variants: readonly Variant[] = VARIANTS,
  thinkMs = 0,
): Promise<SideBySideResult> {
  const notes: string[] = [];
  const usable = variants.filter((v) => {
    if (v === 'adapter' && !existsSync(join(ADAPTER_DIR, 'package.json'))) {
      notes.push('pi-mcp-adapter is not provisioned; its column is missing.');
      return false;
    }
    return true;
  });
  const dirs = new Map<Variant, AgentDir>();
  const collected = new Map<Variant, { runs: RunFigures[]; failures: string[] }>();
  let leftoverProcesses = 0;
  // The server's own start is sampled in every round, next to the Pi runs it is compared with.
  const startSamples: number[] = [];
  await everythingStart(); // warm-up
  try {
    for (const v of usable) {
      const dir = createAgentDir({ llmBaseUrl: 'http://127.0.0.1:9/v1' });
      if (v !== 'none')
        writeFileSync(join(dir.agentDir, 'mcp.json'), JSON.stringify(serverConfig(dir, v), null, 2));
      dirs.set(v, dir);
      collected.set(v, { runs: [], failures: [] });
    }
    // Two warm-up rounds: the first fills the metadata caches, the second starts from them as any later
    // session does (and leaves the start record an unchanged start uses).
    const WARMUP_ROUNDS = 2;
    for (let round_ = 0; round_ < runs + WARMUP_ROUNDS; round_++) {
      const order = usable.map((_, i) => usable[(i + round_) % usable.length]!);
      if (round_ >= WARMUP_ROUNDS) startSamples.push(await everythingStart());
      for (const v of order) {
        const problems: string[] = [];
        const run = await runPiTimed({
          dir: dirs.get(v)!,
          extensions: isOurs(v) ? [extensionEntry()] : v === 'adapter' ? [ADAPTER_DIR] : [],
          prompt: 'Find the echo tool, call it, and tell me what it said.',
          step: scriptFor(v, problems),
          timeoutMs: 120_000,
          thinkMs,
        });
        leftoverProcesses += endLeftovers();
        const c = collected.get(v)!;
        const expected = v === 'none' ? 1 : 3;
        const echoed =
          v === 'none' ||
          toolResultMessages(run.bodies[2] ?? { model: '', messages: [] }).some((m) =>
            m.content.includes(ECHO_TEXT),
          );
        const ok = run.code === 0 && run.bodies.length === expected && echoed && problems.length === 0;
        if (!ok) {
          c.failures.push(
            `round ${round_}: exit ${run.code}${run.timedOut ? ' (timed out)' : ''}, ${run.bodies.length} requests, echoed=${echoed}; ${problems.join('; ')} ${run.stderr.slice(-400)}`.trim(),
          );
        }
        if (round_ < WARMUP_ROUNDS || !ok) continue;
        c.runs.push({
          ok,
          firstRequestMs: round(run.arrivals[0]!, 1),
          ...(run.cpuAtArrivalMs[0] !== undefined
            ? { firstRequestCpuMs: round(run.cpuAtArrivalMs[0], 1) }
            : {}),
          ...(v !== 'none'
            ? {
                searchTurnMs: round(run.arrivals[1]! - run.answered[0]!, 1),
                callTurnMs: round(run.arrivals[2]! - run.answered[1]!, 1),
              }
            : {}),
          shutdownMs: round(run.wallMs - run.answered.at(-1)!, 1),
          wallMs: round(run.wallMs, 1),
          peakRssMb: run.peakRssMb,
          processes: run.maxProcesses,
          turnOne: turnOneTokens(run.bodies[0]),
        });
      }
    }
  } finally {
    // The shared host of `ours` is stopped first (a host also stops once its agent dir is deleted).
    for (const dir of dirs.values()) {
      await stopHostsUnder(dir.root);
      dir.cleanup();
    }
  }

  const result: SideBySideResult = {
    runs,
    thinkMs,
    servers: ['everything', 'filesystem', 'memory', 'github', 'playwright'],
    everythingStartMs: round(median(startSamples), 1),
    everythingStartSamples: startSamples,
    variants: {},
    leftoverProcesses,
    notes,
  };
  for (const v of usable) {
    const c = collected.get(v)!;
    const m = (pick: (r: RunFigures) => number | undefined) => {
      const xs = c.runs.map(pick).filter((x): x is number => x !== undefined);
      return xs.length ? round(median(xs), 1) : Number.NaN;
    };
    result.variants[v] = {
      label: VARIANT_LABELS[v],
      runs: c.runs,
      failures: c.failures,
      median: {
        firstRequestMs: m((r) => r.firstRequestMs),
        firstRequestCpuMs: m((r) => r.firstRequestCpuMs),
        searchTurnMs: m((r) => r.searchTurnMs),
        callTurnMs: m((r) => r.callTurnMs),
        shutdownMs: m((r) => r.shutdownMs),
        wallMs: m((r) => r.wallMs),
        peakRssMb: m((r) => r.peakRssMb),
        processes: m((r) => r.processes),
        toolsTokens: m((r) => r.turnOne.toolsTokens),
        systemTokens: m((r) => r.turnOne.systemTokens),
      },
    };
  }
  const none = result.variants.none;
  if (none) {
    for (const v of usable) {
      const r = result.variants[v]!;
      if (v === 'none') continue;
      r.mcpTurnOneTokens =
        r.median.toolsTokens + r.median.systemTokens - (none.median.toolsTokens + none.median.systemTokens);
      r.firstRequestDeltaMs = round(r.median.firstRequestMs - none.median.firstRequestMs, 1);
      if (Number.isFinite(r.median.firstRequestCpuMs) && Number.isFinite(none.median.firstRequestCpuMs))
        r.firstRequestCpuDeltaMs = round(r.median.firstRequestCpuMs - none.median.firstRequestCpuMs, 1);
      r.shutdownDeltaMs = round(r.median.shutdownMs - none.median.shutdownMs, 1);
    }
  }
  return result;
}

export interface ColdStartResult {
  runs: number;
  /** Time to the first model request, with jiti transpiling the extension again (first start after install). */
  variants: Partial<Record<Variant, { label: string; firstRequestMs: number[]; medianMs: number }>>;
  failures: string[];
}

/**
 * The first start after install: `JITI_REBUILD_FS_CACHE=1` makes jiti transpile the extension as if its
 * cache were empty (Pi alone loads no extension, so it is unaffected: the anchor). Metadata caches are
 * warm (one ordinary run first). One prompt, answered at once; the model request is the measure.
 */
export async function runColdStart(runs: number, variants: readonly Variant[] = ['none', 'ours', 'adapter']) {
  const usable = variants.filter((v) => v !== 'adapter' || existsSync(join(ADAPTER_DIR, 'package.json')));
  const result: ColdStartResult = { runs, variants: {}, failures: [] };
  const dirs = new Map<Variant, AgentDir>();
  const samples = new Map<Variant, number[]>();
  try {
    for (const v of usable) {
      const dir = createAgentDir({ llmBaseUrl: 'http://127.0.0.1:9/v1' });
      if (v !== 'none')
        writeFileSync(join(dir.agentDir, 'mcp.json'), JSON.stringify(serverConfig(dir, v), null, 2));
      dirs.set(v, dir);
      samples.set(v, []);
    }
    for (let round_ = 0; round_ < runs + 1; round_++) {
      for (const v of usable.map((_, i) => usable[(i + round_) % usable.length]!)) {
        const run = await runPiTimed({
          dir: dirs.get(v)!,
          extensions: isOurs(v) ? [extensionEntry()] : v === 'adapter' ? [ADAPTER_DIR] : [],
          prompt: 'Say hello.',
          step: () => ({ text: 'Hello.' }),
          timeoutMs: 120_000,
          ...(round_ > 0 ? { env: { JITI_REBUILD_FS_CACHE: '1' } } : {}),
        });
        endLeftovers();
        if (run.code !== 0 || run.arrivals[0] === undefined) {
          result.failures.push(`${v} round ${round_}: exit ${run.code} ${run.stderr.slice(-300)}`.trim());
          continue;
        }
        if (round_ > 0) samples.get(v)!.push(round(run.arrivals[0], 1));
      }
    }
  } finally {
    // The shared host of `ours` is stopped first (a host also stops once its agent dir is deleted).
    for (const dir of dirs.values()) {
      await stopHostsUnder(dir.root);
      dir.cleanup();
    }
  }
  for (const v of usable) {
    const xs = samples.get(v)!;
    result.variants[v] = { label: VARIANT_LABELS[v], firstRequestMs: xs, medianMs: round(median(xs), 1) };
  }
  return result;
}
