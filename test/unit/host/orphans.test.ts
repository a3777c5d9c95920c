// Ending the servers of a dead host: only processes provably the recorded ones are signalled (a pid
// the kernel gave to another process since is never hit), a live host's servers are never touched.
// Real processes, each in its own group as the host spawns servers.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endOrphans } from '../../../src/host/orphans.ts';
import { type HostRecord, recordsDir } from '../../../src/host/process-records.ts';
import { procTable, psTable } from '../../../src/host/process-table.ts';
import { isAlive } from '../../fixtures/servers/spawn.ts';

let agentDir: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  agentDir = mkdtempSync(join(tmpdir(), 'orphans-unit-'));
  mkdirSync(recordsDir(agentDir), { recursive: true });
});

afterEach(() => {
  for (const child of children.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  }
  rmSync(agentDir, { recursive: true, force: true });
});

/** A process leading its own group, as a host's server does; `ignoreTerm` ignores SIGTERM. */
function server(ignoreTerm = false): Promise<number> {
  const code = `${ignoreTerm ? "process.on('SIGTERM', () => {});" : ''} setInterval(() => {}, 1000); process.stdout.write('up\\n');`;
  const child = spawn(process.execPath, ['-e', code], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  return new Promise((resolve) => child.stdout!.once('data', () => resolve(child.pid!)));
}

/** A record by a host `pid` (dead unless it is a live process with this start time). */
function record(host: { pid: number; start: string }, groups: HostRecord['groups']): string {
  const file = join(recordsDir(agentDir), `host-${host.pid}-x.json`);
  const boot = procTable.bootId();
  writeFileSync(file, JSON.stringify({ host, ...(boot ? { boot } : {}), groups }));
  return file;
}

/** A pid no process has now. */
const DEAD_PID = 2 ** 22 - 3;

describe.each([
  ['/proc', procTable],
  ['ps', psTable],
])('with the start times of %s', (_name, table) => {
  it('ends the groups of a dead host and clears its record', async () => {
    const pid = await server();
    const start = table.startOf(pid)!;
    expect(start).toBeDefined();
    record({ pid: DEAD_PID, start: 't:1' }, [{ pgid: pid, start, command: 'node' }]);
    const ended = await endOrphans(agentDir, { table, graceMs: 2_000 });
    expect(ended.groups).toEqual([expect.objectContaining({ pgid: pid, killed: false })]);
    expect(isAlive(pid)).toBe(false);
    expect(readdirSync(recordsDir(agentDir))).toEqual([]);
  });

  it('a pid that now belongs to a process started at another time is not signalled', async () => {
    const pid = await server();
    const other = table === procTable ? 't:1' : 'w:1';
    record({ pid: DEAD_PID, start: 't:1' }, [{ pgid: pid, start: other, command: 'node' }]);
    const ended = await endOrphans(agentDir, { table, graceMs: 500 });
    expect(ended.groups).toEqual([]);
    expect(isAlive(pid)).toBe(true);
  });
});

it('a server that ignores SIGTERM is killed after the grace', async () => {
  const pid = await server(true);
  record({ pid: DEAD_PID, start: 't:1' }, [{ pgid: pid, start: procTable.startOf(pid)!, command: 'node' }]);
  const began = Date.now();
  const ended = await endOrphans(agentDir, { graceMs: 300 });
  expect(Date.now() - began).toBeGreaterThanOrEqual(300);
  expect(ended.groups).toEqual([expect.objectContaining({ pgid: pid, killed: true })]);
  await expect.poll(() => isAlive(pid)).toBe(false);
});

it("a live host's servers are left alone, whatever its version", async () => {
  const pid = await server();
  const hostLike = await server();
  const file = record({ pid: hostLike, start: procTable.startOf(hostLike)! }, [
    { pgid: pid, start: procTable.startOf(pid)!, command: 'node' },
  ]);
  const ended = await endOrphans(agentDir, { graceMs: 300 });
  expect(ended).toEqual({ hosts: [], groups: [] });
  expect(isAlive(pid)).toBe(true);
  expect(readdirSync(recordsDir(agentDir))).toEqual([file.slice(file.lastIndexOf('/') + 1)]);
});

it('a record of another boot names nobody: cleared, nothing signalled', async () => {
  const pid = await server();
  const file = join(recordsDir(agentDir), 'host-1-x.json');
  writeFileSync(
    file,
    JSON.stringify({
      host: { pid: DEAD_PID, start: 't:1' },
      boot: 'another-boot',
      groups: [{ pgid: pid, start: procTable.startOf(pid)!, command: 'node' }],
    }),
  );
  await endOrphans(agentDir, { graceMs: 300 });
  expect(isAlive(pid)).toBe(true);
  expect(readdirSync(recordsDir(agentDir))).toEqual([]);
});
