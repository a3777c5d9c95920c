// Churn and load drivers, shared by test/reliability/ (short runs with assertions) and `npm run bench`
// (long runs, figures in the report).
//   runChurn: session start/stop cycles through the Pi bridge (as /reload and /new do), servers of
//             every lifecycle; samples processes, handles, file descriptors, listeners, heap and RSS.
//   runLoad:  N servers × M concurrent calls for a while, with idle shutdowns between bursts; checks
//             every answer against its call and samples the actors' in-flight counts.

import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { waitFor } from 'xstate';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi } from '../../src/adapters/pi/bridge.ts';
import { serverStateOf } from '../../src/machines/server.machine.ts';
import { listDescendants, stdioFixture } from '../fixtures/servers/spawn.ts';
import { definition } from './config.ts';
import { RecordingPi } from './recording-pi.ts';
import { resultText, startRuntime } from './runtime.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export interface ResourceSample {
  heapUsedMB: number;
  rssMB: number;
  /** Node's active handles and requests by type (sockets, pipes, child processes, timers, …). */
  handles: Record<string, number>;
  handleCount: number;
  fileDescriptors: number;
  childProcesses: number;
  processListeners: number;
}

export function sampleResources(): ResourceSample {
  gc();
  gc();
  const memory = process.memoryUsage();
  const handles: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) handles[type] = (handles[type] ?? 0) + 1;
  return {
    heapUsedMB: round(memory.heapUsed / 2 ** 20),
    rssMB: round(memory.rss / 2 ** 20),
    handles,
    handleCount: Object.values(handles).reduce((a, b) => a + b, 0),
    fileDescriptors: readdirSync('/proc/self/fd').length,
    childProcesses: listDescendants(process.pid).length,
    processListeners: process.eventNames().reduce((n, e) => n + process.listenerCount(e), 0),
  };
}

const round = (x: number) => Math.round(x * 10) / 10;

export interface ChurnFigures {
  cycles: number;
  ms: number;
  /** After the warm-up cycles. */
  baseline: ResourceSample;
  end: ResourceSample;
  /** Server actors alive after the last stop (must be 0). */
  actorsLeft: number;
  /** MCP server processes of the churn still running after the last stop (must be 0). */
  serversLeft: number;
  maxServerProcesses: number;
}

const churnServers = () => listDescendants(process.pid).filter((p) => p.command.includes('--name churn-'));

export interface ChurnOptions {
  cycles: number;
  warmup: number;
  dir: string;
  httpUrl: string;
  /** Also an eager stdio server (a process spawned per session start): costly, on in the benchmark. */
  eagerStdio: boolean;
  /** Call the lazy stdio server every N cycles. */
  callEvery: number;
}

export async function runChurn(options: ChurnOptions): Promise<ChurnFigures> {
  const agentDir = join(options.dir, 'agent');
  const project = join(options.dir, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  const servers: Record<string, unknown> = {
    lazy_stdio: { ...stdioFixture(['--name', 'churn-lazy']) },
    eager_http: { url: options.httpUrl, lifecycle: 'eager' },
    keep_http: { url: options.httpUrl, lifecycle: 'keep-alive' },
  };
  if (options.eagerStdio)
    servers.eager_stdio = { ...stdioFixture(['--name', 'churn-eager']), lifecycle: 'eager' };
  // The session's own lifecycle is what churns here (its servers must end with each session): servers
  // run in the session. The shared host's attach/detach cycles: test/integration/shared-host/faults.test.ts.
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({ settings: { sharedHost: false }, mcpServers: servers }),
  );
  const pi = new RecordingPi(project, true);
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: agentDir },
    homeDir: options.dir,
  });
  const eager = Object.keys(servers).filter((n) => n !== 'lazy_stdio');
  let baseline: ResourceSample | undefined;
  let maxServerProcesses = 0;
  const started = performance.now();
  for (let cycle = 0; cycle < options.warmup + options.cycles; cycle++) {
    if (cycle === options.warmup) baseline = sampleResources();
    await pi.emit('session_start', { reason: cycle % 2 === 0 ? 'new' : 'reload' });
    const runtime = await bridge.runtime();
    // Half the cycles stop while eager servers are still connecting; the other half once connected.
    if (cycle % 2 === 0) {
      await Promise.all(
        eager.map((name) =>
          waitFor(runtime.servers()[name]!, (s) => s.matches('connected'), { timeout: 20_000 }),
        ),
      );
    }
    if (cycle % options.callEvery === 0) {
      // On the first run its tools are learnt in the background; the model would search first.
      await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.lazy_stdio), { timeout: 20_000 });
      const result = await pi.callTool('lazy_stdio__echo', { text: `cycle ${cycle}` });
      if (resultText(result) !== `cycle ${cycle}`)
        throw new Error(`churn call failed: ${resultText(result)}`);
    }
    maxServerProcesses = Math.max(maxServerProcesses, churnServers().length);
    await pi.emit('session_shutdown', { reason: 'reload' });
  }
  const ms = performance.now() - started;
  const runtime = await bridge.runtime();
  const actorsLeft = Object.keys(runtime.servers()).length;
  runtime.dispose();
  // Closed servers' processes are reaped, and closed HTTP connections' sockets released, asynchronously:
  // wait (bounded) until they are gone before sampling; a real leak still shows after the bound.
  const sockets = () => process.getActiveResourcesInfo().filter((t) => t === 'TCPSocketWrap').length;
  const settled = () => churnServers().length === 0 && sockets() <= (baseline!.handles.TCPSocketWrap ?? 0);
  for (let i = 0; i < 100 && !settled(); i++) await new Promise((r) => setTimeout(r, 50));
  return {
    cycles: options.cycles,
    ms: Math.round(ms),
    baseline: baseline!,
    end: sampleResources(),
    actorsLeft,
    serversLeft: churnServers().length,
    maxServerProcesses,
  };
}

export interface LoadFigures {
  servers: number;
  concurrency: number;
  ms: number;
  calls: number;
  callsPerSecond: number;
  /** Answers that were errors, missing, duplicated or meant for another call (must all be 0). */
  errors: number;
  lost: number;
  duplicated: number;
  crossed: number;
  /** The highest in-flight count any server actor reported (≤ concurrency). */
  maxInFlight: number;
  /** Idle shutdowns between bursts (each one reconnected by the next call). */
  idleShutdowns: number;
  p50Ms: number;
  p99Ms: number;
  firstError?: string;
}

export interface LoadOptions {
  servers: number;
  concurrency: number;
  durationMs: number;
  dir: string;
  /** Bursts of this length, then a pause of pauseMs (longer than idleTimeoutMs, for idle shutdown). */
  burstMs: number;
  pauseMs: number;
  idleTimeoutMs: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadFigures> {
  const defs = Array.from({ length: options.servers }, (_, i) =>
    definition({
      name: `load${i}`,
      transport: 'stdio',
      ...stdioFixture(['--name', `load-${i}`, '--reliability-tools']),
      idleTimeoutMs: options.idleTimeoutMs,
      startupTimeoutMs: 30_000,
      requestTimeoutMs: 30_000,
    }),
  );
  const runtime = await startRuntime(defs, { tempDir: options.dir });
  const refs = runtime.servers();
  let maxInFlight = 0;
  let idleShutdowns = 0;
  const subscriptions = Object.values(refs).map((ref) => {
    let last = serverStateOf(ref.getSnapshot());
    return ref.subscribe((snapshot) => {
      maxInFlight = Math.max(maxInFlight, snapshot.context.inFlight);
      const state = serverStateOf(snapshot);
      // An idle shutdown leaves connected through closing.
      if (state === 'closing' && last === 'connected') idleShutdowns++;
      last = state;
    });
  });
  const answered = new Map<string, number>();
  const latencies: number[] = [];
  let calls = 0;
  let errors = 0;
  let crossed = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const end = started + options.durationMs;
  const period = options.burstMs + options.pauseMs;
  const inBurst = () => (performance.now() - started) % period < options.burstMs;
  const worker = async (server: number, id: number) => {
    let seq = 0;
    while (performance.now() < end) {
      if (!inBurst()) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      const text = `s${server}-w${id}-n${seq++}`;
      calls++;
      const t = performance.now();
      const result = await runtime.callTool(`load${server}__slow_echo`, { text, ms: (seq * 7) % 15 });
      latencies.push(performance.now() - t);
      const got = resultText(result);
      if (result.isError) {
        errors++;
        firstError ??= got;
      } else if (got !== text) crossed++;
      answered.set(got, (answered.get(got) ?? 0) + 1);
    }
  };
  await Promise.all(
    defs.flatMap((_, server) => Array.from({ length: options.concurrency }, (_, id) => worker(server, id))),
  );
  const ms = performance.now() - started;
  const inFlightLeft = Object.values(refs).reduce((n, ref) => n + ref.getSnapshot().context.inFlight, 0);
  for (const s of subscriptions) s.unsubscribe();
  await runtime.stop();
  runtime.dispose();
  latencies.sort((a, b) => a - b);
  const duplicated = [...answered.values()].filter((n) => n > 1).length;
  const lost = calls - latencies.length + inFlightLeft;
  return {
    servers: options.servers,
    concurrency: options.concurrency,
    ms: Math.round(ms),
    calls,
    callsPerSecond: Math.round((calls / ms) * 1000),
    errors,
    lost,
    duplicated,
    crossed,
    maxInFlight,
    idleShutdowns,
    p50Ms: round(latencies[Math.floor(latencies.length * 0.5)] ?? 0),
    p99Ms: round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
    ...(firstError ? { firstError } : {}),
  };
}
