// 2. Startup. In-process: extension load (`bridgePi` on a recording PiHost) + `session_start` (what the
// first model request needs), then the runtime's start in the background until every tool is registered, from a real mcp-cache.json of 5, 23 and 100 × 50 lazy servers (none may start).
// `session_start` twice: loading config and cache (a first start), and from the start record (the next,
// unchanged one).
// Reference: reading and parsing the same two files (the floor any implementation pays).
// Real Pi: time to the first model request with the extension (5 and 23 cached servers) vs without it, and
// with an extension that does nothing (what Pi spends on any extension), many interleaved runs.

import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bridgePi } from '../src/adapters/pi/bridge.ts';
import { START_RECORD_FILE_NAME } from '../src/adapters/pi/start-record.ts';
import { configHash, createCacheStore } from '../src/catalog/cache.ts';
import { loadConfig } from '../src/config/load.ts';
import type { Connector } from '../src/machines/server-types.ts';
import { type AgentDir, createAgentDir } from '../test/e2e/harness/agent-dir.ts';
import { RecordingPi } from '../test/support/recording-pi.ts';
import type { CatalogFile } from './support/catalogs.ts';
import { emptyExtensionEntry, extensionEntry, timedExtensionEntry } from './support/installed.ts';
import { runPiTimed } from './support/pi-run.ts';
import { median, ratio, round, type Summary, summarize } from './support/stats.ts';

/** An isolated agent dir whose mcp.json lists these servers (lazy npx entries) and whose cache holds their tools. */
export async function cachedAgentDir(
  catalogs: CatalogFile[],
): Promise<{ dir: AgentDir; tools: number; env: Record<string, string> }> {
  const mcpServers = Object.fromEntries(
    catalogs.map((c) => [c.server, { command: 'npx', args: ['-y', `@example/${c.server}`] }]),
  );
  const dir = createAgentDir({ llmBaseUrl: 'http://127.0.0.1:9/v1', mcpJson: { mcpServers } });
  const env = { ...dir.env, PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const config = loadConfig({
    agentDir: dir.agentDir,
    cwd: dir.projectDir,
    homeDir: dir.home,
    env,
    projectTrusted: false,
  });
  const byName = new Map(catalogs.map((c) => [c.server, c]));
  const store = createCacheStore({ file: join(dir.agentDir, 'mcp-cache.json') });
  await store.write(
    Object.fromEntries(
      config.servers.map((def) => {
        const c = byName.get(def.name)!;
        return [
          def.name,
          { configHash: configHash(def), tools: c.tools, resources: c.resources ?? [], cachedAt: Date.now() },
        ];
      }),
    ),
  );
  const tools = catalogs.reduce((n, c) => n + c.tools.length, 0);
  return { dir, tools, env };
}

export interface InProcessStartup {
  servers: number;
  tools: number;
  registered: number;
  serversStarted: number;
  load: Summary;
  /** Config + cache loaded, validated and catalogued (a first start, or one whose inputs changed). */
  sessionStart: Summary;
  /** The same start when nothing changed since the last one: from the start record (mcp-start.json). */
  sessionStartFromRecord: Summary;
  total: Summary;
  /** After session_start, off the critical path: the runtime loads, starts and registers the deferred tools. */
  runtimeStart: Summary;
  floor: Summary;
  totalOverFloor: number;
}

async function waitForFile(file: string): Promise<void> {
  for (let i = 0; i < 1000 && !existsSync(file); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!existsSync(file)) throw new Error(`benchmark: ${file} was not written`);
}

async function inProcess(
  catalogs: CatalogFile[],
  iterations: number,
  warmup: number,
): Promise<InProcessStartup> {
  const { dir, tools, env } = await cachedAgentDir(catalogs);
  let started = 0;
  const connector: Connector = async () => {
    started++;
    throw new Error('benchmark: no server may start');
  };
  const load: number[] = [];
  const sessionStart: number[] = [];
  const fromRecord: number[] = [];
  const total: number[] = [];
  const runtimeStart: number[] = [];
  const floor: number[] = [];
  let registered = 0;
  try {
    const recordFile = join(dir.agentDir, START_RECORD_FILE_NAME);
    for (let i = 0; i < iterations + warmup; i++) {
      rmSync(recordFile, { force: true });
      const pi = new RecordingPi(dir.projectDir, false);
      const t0 = performance.now();
      const bridge = bridgePi(pi, { connector, env, homeDir: dir.home });
      const t1 = performance.now();
      await pi.emit('session_start', { reason: 'startup' });
      const t2 = performance.now();
      if (bridge.startedFrom() !== 'load') throw new Error('benchmark: expected a full load');
      // The request goes out: the start is remembered (mcp-start.json) for the next, unchanged one.
      await pi.emit('before_provider_request', { payload: {} });
      await bridge.runtime();
      const t3 = performance.now();
      registered = pi.tools.size - 1; // minus ToolSearch
      await pi.emit('session_shutdown', { reason: 'quit' });
      await waitForFile(recordFile);
      const again = new RecordingPi(dir.projectDir, false);
      const next = bridgePi(again, { connector, env, homeDir: dir.home });
      const r0 = performance.now();
      await again.emit('session_start', { reason: 'startup' });
      const r1 = performance.now();
      if (next.startedFrom() !== 'record') throw new Error('benchmark: the start record was not used');
      await again.emit('session_shutdown', { reason: 'quit' });
      const f0 = performance.now();
      JSON.parse(readFileSync(join(dir.agentDir, 'mcp.json'), 'utf8'));
      JSON.parse(readFileSync(join(dir.agentDir, 'mcp-cache.json'), 'utf8'));
      const f1 = performance.now();
      if (i < warmup) continue; // JIT and file-cache warm-up
      load.push(t1 - t0);
      sessionStart.push(t2 - t1);
      fromRecord.push(r1 - r0);
      total.push(t2 - t0);
      runtimeStart.push(t3 - t2);
      floor.push(f1 - f0);
    }
  } finally {
    dir.cleanup();
  }
  return {
    servers: catalogs.length,
    tools,
    registered,
    serversStarted: started,
    load: summarize(load),
    sessionStart: summarize(sessionStart),
    sessionStartFromRecord: summarize(fromRecord),
    total: summarize(total),
    runtimeStart: summarize(runtimeStart),
    floor: summarize(floor),
    totalOverFloor: ratio(median(total), median(floor)),
  };
}

export interface RealPiSide {
  firstRequestMs: number[];
  wallMs: number[];
  medianFirstMs: number;
  medianWallMs: number;
  /** CPU time Pi's main thread had used when the first request arrived (Linux only). */
  firstRequestCpuMs?: number[];
  medianFirstCpuMs?: number;
}

export interface RealPiStartup {
  runs: number;
  servers: number;
  cacheUsed: boolean;
  noMcp: RealPiSide;
  /** Pi with an extension that does nothing (bench/support/installed.ts): what any extension costs. */
  emptyExtension: RealPiSide;
  ours: RealPiSide;
  firstRequestRatio: number;
  firstRequestDeltaMs: number;
  /** The same gap in CPU time of Pi's main thread (grows far less with the machine's load than wall time). */
  firstRequestCpuDeltaMs?: number;
  emptyExtensionDeltaMs: number;
  emptyExtensionCpuDeltaMs?: number;
  /** Our own work before the first request, timed inside Pi (medians over separate runs). */
  own?: { runs: number; importMs: number; factoryMs: number; sessionStartMs: number };
  errors: string[];
}

type Side = 'noMcp' | 'emptyExtension' | 'ours';

/** Our import, factory and session_start timed inside Pi (bench/support/installed.ts), as in `ours` runs. */
async function ownTimes(dir: AgentDir, runs: number): Promise<RealPiStartup['own']> {
  const file = join(dir.root, 'own-times.jsonl');
  const samples: Record<string, number[]> = { import: [], factory: [], session_start: [] };
  for (let i = 0; i < runs; i++) {
    rmSync(file, { force: true });
    const run = await runPiTimed({
      dir,
      extensions: [timedExtensionEntry()],
      env: { PI_MCP_BENCH_TIMES: file },
      prompt: 'Say hello.',
      step: () => ({ text: 'Hello.' }),
      timeoutMs: 60_000,
    });
    if (run.code !== 0 || !existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').trim().split('\n')) {
      const { what, ms } = JSON.parse(line) as { what: string; ms: number };
      samples[what]?.push(ms);
    }
  }
  if (!samples.import!.length || !samples.session_start!.length) return undefined;
  return {
    runs: samples.import!.length,
    importMs: round(median(samples.import!), 2),
    factoryMs: round(median(samples.factory!), 2),
    sessionStartMs: round(median(samples.session_start!), 2),
  };
}

async function realPi(catalogs: CatalogFile[], runs: number): Promise<RealPiStartup> {
  const { dir } = await cachedAgentDir(catalogs);
  const bare = createAgentDir({ llmBaseUrl: 'http://127.0.0.1:9/v1' });
  const sides: Record<Side, { first: number[]; wall: number[]; cpu: number[] }> = {
    noMcp: { first: [], wall: [], cpu: [] },
    emptyExtension: { first: [], wall: [], cpu: [] },
    ours: { first: [], wall: [], cpu: [] },
  };
  const names = Object.keys(sides) as Side[];
  const errors: string[] = [];
  let cacheUsed = true;
  let own: RealPiStartup['own'];
  try {
    for (let i = 0; i < runs + 1; i++) {
      const order = names.map((_, k) => names[(k + i) % names.length]!);
      for (const side of order) {
        const run = await runPiTimed({
          dir: side === 'ours' ? dir : bare,
          extensions:
            side === 'ours' ? [extensionEntry()] : side === 'emptyExtension' ? [emptyExtensionEntry()] : [],
          prompt: 'Say hello.',
          step: () => ({ text: 'Hello.' }),
          timeoutMs: 60_000,
        });
        if (run.code !== 0 || run.arrivals[0] === undefined) {
          errors.push(
            `${side}: exit ${run.code}${run.timedOut ? ' (timed out)' : ''}: ${run.stderr.slice(-500)}`,
          );
          continue;
        }
        if (side === 'ours') {
          const search = run.bodies[0]?.tools?.find((t) => t.function.name === 'ToolSearch');
          if (!search || search.function.description?.includes('(?)')) cacheUsed = false;
        }
        if (i === 0) continue; // warm-up (disk cache, jiti cache, start record)
        sides[side].first.push(run.arrivals[0]);
        sides[side].wall.push(run.wallMs);
        if (run.cpuAtArrivalMs[0] !== undefined) sides[side].cpu.push(run.cpuAtArrivalMs[0]);
      }
    }
    own = await ownTimes(dir, Math.max(5, Math.round(runs / 3)));
  } finally {
    dir.cleanup();
    bare.cleanup();
  }
  const pack = (s: { first: number[]; wall: number[]; cpu: number[] }): RealPiSide => ({
    firstRequestMs: s.first.map((x) => round(x, 1)),
    wallMs: s.wall.map((x) => round(x, 1)),
    medianFirstMs: round(median(s.first), 1),
    medianWallMs: round(median(s.wall), 1),
    ...(s.cpu.length
      ? { firstRequestCpuMs: s.cpu.map((x) => round(x, 1)), medianFirstCpuMs: round(median(s.cpu), 1) }
      : {}),
  });
  const noMcp = pack(sides.noMcp);
  const emptyExtension = pack(sides.emptyExtension);
  const ours = pack(sides.ours);
  const cpuDelta = (side: RealPiSide) =>
    side.medianFirstCpuMs !== undefined && noMcp.medianFirstCpuMs !== undefined
      ? round(side.medianFirstCpuMs - noMcp.medianFirstCpuMs, 1)
      : undefined;
  const oursCpu = cpuDelta(ours);
  const emptyCpu = cpuDelta(emptyExtension);
  return {
    runs,
    servers: catalogs.length,
    cacheUsed,
    noMcp,
    emptyExtension,
    ours,
    firstRequestRatio: ratio(ours.medianFirstMs, noMcp.medianFirstMs),
    firstRequestDeltaMs: round(ours.medianFirstMs - noMcp.medianFirstMs, 1),
    ...(oursCpu !== undefined ? { firstRequestCpuDeltaMs: oursCpu } : {}),
    emptyExtensionDeltaMs: round(emptyExtension.medianFirstMs - noMcp.medianFirstMs, 1),
    ...(emptyCpu !== undefined ? { emptyExtensionCpuDeltaMs: emptyCpu } : {}),
    ...(own ? { own } : {}),
    errors,
  };
}

export interface StartupResult {
  inProcess: Record<string, InProcessStartup>;
  /** By catalog (five, all23). */
  realPi?: Record<string, RealPiStartup>;
  realPiError?: string;
}

export async function runStartup(
  sets: Record<string, { catalogs: CatalogFile[]; iterations: number; warmup: number }>,
  real: Record<string, { catalogs: CatalogFile[]; runs: number }>,
): Promise<StartupResult> {
  const result: StartupResult = { inProcess: {} };
  for (const [name, set] of Object.entries(sets))
    result.inProcess[name] = await inProcess(set.catalogs, set.iterations, set.warmup);
  try {
    for (const [name, set] of Object.entries(real)) {
      result.realPi ??= {};
      result.realPi[name] = await realPi(set.catalogs, set.runs);
    }
  } catch (error) {
    result.realPiError = String(error);
  }
  return result;
}
