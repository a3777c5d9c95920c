// The shared host against servers in each session: N sessions × M servers (the stdio fixture, M
// distinct entries), server processes and their total RSS, and the time a session takes to connect a
// server another session already started. Not part of `npm run bench` yet (issue 26, opt-in):
//   npx tsx bench/shared-host.ts [--sessions=5] [--servers=5]

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { sharedHostConnector } from '../src/adapters/host/shared-connector.ts';
import { openHost } from '../src/adapters/host/start-host.ts';
import { connectMcp } from '../src/adapters/mcp/index.ts';
import type { Connection } from '../src/ports/connection.ts';

import { stdioDefinition } from '../test/fixtures/servers/definitions.ts';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const SESSIONS = arg('sessions', 5);
const SERVERS = arg('servers', 5);

const rssKb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
const definitions = Array.from({ length: SERVERS }, (_, i) =>
  stdioDefinition(['--name', `bench-${i}`], { name: `s${i}`, inheritEnv: false }),
);
const signal = new AbortController().signal;

function summary(label: string, connections: Connection[], extraPids: number[] = []) {
  const pids = [...new Set([...connections.map((c) => c.pid!), ...extraPids])];
  const mb = pids.reduce((sum, pid) => sum + rssKb(pid), 0) / 1024;
  console.log(`${label}: ${pids.length} processes, ${mb.toFixed(0)} MB RSS`);
  return mb;
}

async function inSessions(): Promise<number> {
  const connections: Connection[] = [];
  for (let s = 0; s < SESSIONS; s++)
    for (const def of definitions) connections.push(await connectMcp(def, { signal }));
  const mb = summary(`in each session (${SESSIONS} × ${SERVERS})`, connections);
  await Promise.all(connections.map((c) => c.close()));
  return mb;
}

async function shared(): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), 'pmh-bench-'));
  const agentDir = join(root, 'a');
  mkdirSync(agentDir);
  const connections: Connection[] = [];
  const firstMs: number[] = [];
  const warmMs: number[] = [];
  let hostPid = 0;
  try {
    for (let s = 0; s < SESSIONS; s++) {
      const connect = sharedHostConnector({ agentDir }, connectMcp)(root);
      for (const def of definitions) {
        const started = performance.now();
        const connection = await connect(def, { signal });
        await connection.callTool('echo', { text: 'x' });
        (s === 0 ? firstMs : warmMs).push(performance.now() - started);
        connections.push(connection);
      }
    }
    const probe = await openHost({ agentDir, label: 'bench' });
    hostPid = (await probe.status()).pid;
    probe.close();
    console.log(`the host itself: ${(rssKb(hostPid) / 1024).toFixed(0)} MB RSS`);
    const mb = summary(`shared host (${SESSIONS} sessions, ${SERVERS} instances + the host)`, connections, [
      hostPid,
    ]);
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `connect + first call: cold ${median(firstMs).toFixed(1)} ms (median), warm ${median(warmMs).toFixed(1)} ms`,
    );
    return mb;
  } finally {
    await Promise.all(connections.map((c) => c.close()));
    if (hostPid) process.kill(hostPid, 'SIGTERM');
    rmSync(root, { recursive: true, force: true });
  }
}

const before = await inSessions();
const after = await shared();
console.log(`shared / in-session memory: ${(after / before).toFixed(2)}`);
