// Throughput of the shared host (issue 35): N sessions × M calls each, all sessions at once, each one
// call after another, through the host against the same load with the server in each session. Each
// session is its own process (as Pi sessions are), so a session's client work runs beside the others'
// as it would. The two modes run in turn (in-session, host, host, in-session …) in one run, so both
// see the same machine load. Latency is per call as the model's tool call sees it: the session's
// runtime (its server actor, the executor) and below it the server in the session or the host.
//   npx tsx bench/host-load.ts [--sessions=16] [--calls=200] [--rounds=2] [--in-flight=1] [--profile=<dir>] [--bare] [--one-process]
// `--bare` calls the Connection itself (no session runtime above it): the host's own hop.
// `--in-flight=N`: each session keeps N of its calls running at once (N = calls: all at once).
// `--one-process` runs every session in the bench's own process instead.
// `--profile` starts the host under `node --cpu-prof` (its profile is written to <dir> when it stops).

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { waitFor } from 'xstate';
import { createRuntime } from '../src/actors/session-actor.ts';
import { sharedHostConnector } from '../src/adapters/host/shared-connector.ts';
import { openHost } from '../src/adapters/host/start-host.ts';
import { connectMcp } from '../src/adapters/mcp/index.ts';
import { buildIdentity } from '../src/host/build-identity.ts';
import { nullLogger } from '../src/logger.ts';
import type { Connector } from '../src/machines/server-types.ts';
import { packageFile } from '../src/package-files.ts';
import { SecretValues } from '../src/redact/index.ts';
import { stdioDefinition } from '../test/fixtures/servers/definitions.ts';
import { loadedConfig } from '../test/support/config.ts';
import { recordingHost, resultText } from '../test/support/runtime.ts';

type Mode = 'in-session' | 'host';
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const SESSIONS = Number(arg('sessions') ?? 16);
const CALLS = Number(arg('calls') ?? 200);
const ROUNDS = Number(arg('rounds') ?? 2);
const PROFILE = arg('profile');
const IN_FLIGHT = Number(arg('in-flight') ?? 1);
const BARE = process.argv.includes('--bare');
const ONE_PROCESS = process.argv.includes('--one-process');
const WARM_CALLS = 5;
const definition = stdioDefinition([], { name: 'load', inheritEnv: false });

const worker = arg('worker') as Mode | undefined;
if (worker) await session(worker, arg('agent-dir')!, Number(arg('index')));
else await main();

type Call = (text: string) => Promise<string>;

/** The session's runtime (server actor, executor) with the one server, in the session or the host. */
async function runtimeCall(mode: Mode, agentDir: string): Promise<{ call: Call; stop(): Promise<void> }> {
  const runtime = createRuntime({
    host: recordingHost(),
    connector: connectMcp,
    loadConfig: () => loadedConfig([definition], { sharedHost: mode === 'host' }),
    logger: nullLogger,
    secrets: new SecretValues(),
    tempDir: agentDir,
    agentDir,
  });
  await runtime.start({ cwd: agentDir, projectTrusted: true });
  // The server connects at start (no cached catalog): its echo tool's registered name once it has.
  await waitFor(runtime.servers().load!, (s) => s.matches('connected'), { timeout: 60_000 });
  const name = runtime.catalog().entries.find((e) => e.server === 'load' && e.tool === 'echo')!.name;
  return {
    call: async (text) => resultText(await runtime.callTool(name, { text })),
    stop: async () => {
      await runtime.stop();
      runtime.dispose();
    },
  };
}

/** The Connection alone: the MCP client, or the line to the host. */
async function bareCall(
  mode: Mode,
  agentDir: string,
  index: number,
): Promise<{ call: Call; stop(): Promise<void> }> {
  const connect: Connector =
    mode === 'host'
      ? sharedHostConnector({ agentDir, label: `bench ${index}` }, connectMcp)(agentDir)
      : connectMcp;
  const connection = await connect(definition, { signal: new AbortController().signal });
  return {
    call: async (text) =>
      ((await connection.callTool('echo', { text })).content[0] as { text?: string } | undefined)?.text ?? '',
    stop: () => connection.close(),
  };
}

/** A session's calls (IN_FLIGHT at a time), each checked to be its own answer; their ms. */
async function calls(call: Call, index: number): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  const one = async () => {
    for (let i = next++; i < CALLS; i = next++) {
      const started = performance.now();
      const text = await call(`s${index} c${i}`);
      times.push(performance.now() - started);
      if (!text.includes(`s${index} c${i}`)) throw new Error(`misrouted: s${index} c${i} got ${text}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, one));
  return times;
}

function open(mode: Mode, agentDir: string, index: number): Promise<{ call: Call; stop(): Promise<void> }> {
  return BARE ? bareCall(mode, agentDir, index) : runtimeCall(mode, agentDir);
}

/** One session: connects, warms up, says `ready`, makes its calls on `go`, prints their times (JSON). */
async function session(mode: Mode, agentDir: string, index: number): Promise<void> {
  const { call, stop } = await open(mode, agentDir, index);
  for (let i = 0; i < WARM_CALLS; i++) await call('warm');
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  const times = await calls(call, index);
  await stop();
  process.stdout.write(`${JSON.stringify(times)}\n`);
  process.exit(0);
}

/** `--one-process`: every session in this process (one event loop for all their runtimes). */
async function inProcess(mode: Mode, agentDir: string): Promise<number[]> {
  const sessions = [];
  for (let index = 0; index < SESSIONS; index++) sessions.push(await open(mode, agentDir, index));
  await Promise.all(
    sessions.map(async ({ call }) => {
      for (let i = 0; i < WARM_CALLS; i++) await call('warm');
    }),
  );
  const times = (await Promise.all(sessions.map(({ call }, index) => calls(call, index)))).flat();
  await Promise.all(sessions.map(({ stop }) => stop()));
  return times;
}

function lines(child: ChildProcess): AsyncIterator<string> {
  return createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
}

/** All sessions of one mode: started and warmed, then let go at once; every call's ms. */
async function load(mode: Mode, agentDir: string): Promise<number[]> {
  if (ONE_PROCESS) return inProcess(mode, agentDir);
  const self = fileURLToPath(import.meta.url);
  const children = Array.from({ length: SESSIONS }, (_, index) =>
    spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        self,
        `--worker=${mode}`,
        `--agent-dir=${agentDir}`,
        `--index=${index}`,
        `--calls=${CALLS}`,
        `--in-flight=${IN_FLIGHT}`,
        ...(BARE ? ['--bare'] : []),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    ),
  );
  const outs = children.map(lines);
  for (const out of outs)
    if ((await out.next()).value !== 'ready') throw new Error('a session did not start');
  for (const child of children) child.stdin!.write('go\n');
  const times: number[] = [];
  for (const out of outs) times.push(...(JSON.parse((await out.next()).value as string) as number[]));
  return times;
}

function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'pmh-load-'));
  const agentDir = join(root, 'a');
  mkdirSync(agentDir);
  let hostPid = 0;
  try {
    if (PROFILE) {
      mkdirSync(PROFILE, { recursive: true });
      const bin = packageFile('bin', 'pi-mcp-actors.mjs');
      spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`, bin, 'host', 'serve'], {
        stdio: 'ignore',
        cwd: agentDir,
        env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_MCP_ACTORS_HOST_BUILD: buildIdentity() },
      }).unref();
    }
    const samples: Record<Mode, number[]> = { 'in-session': [], host: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order: Mode[] = round % 2 === 0 ? ['in-session', 'host'] : ['host', 'in-session'];
      for (const mode of order) {
        const times = await load(mode, agentDir);
        samples[mode].push(...times);
        console.log(
          `round ${round + 1} ${mode}: p50 ${quantile(times, 0.5).toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms`,
        );
      }
    }
    const probe = await openHost({ agentDir, label: 'bench' });
    hostPid = (await probe.status()).pid;
    probe.close();
    const line = (mode: Mode) =>
      `p50 ${quantile(samples[mode], 0.5).toFixed(1)} ms, p99 ${quantile(samples[mode], 0.99).toFixed(1)} ms`;
    const ratio = (q: number) => quantile(samples.host, q) / quantile(samples['in-session'], q);
    console.log(
      `${SESSIONS} sessions × ${CALLS} calls (${IN_FLIGHT} at a time per session), ${ROUNDS} round(s), ${samples.host.length} calls per mode`,
    );
    console.log(`in each session: ${line('in-session')}`);
    console.log(`through the host: ${line('host')}`);
    console.log(`host / in-session: p50 ${ratio(0.5).toFixed(2)}×, p99 ${ratio(0.99).toFixed(2)}×`);
  } finally {
    if (hostPid) process.kill(hostPid, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    rmSync(root, { recursive: true, force: true });
  }
}
