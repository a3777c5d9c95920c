// No server outlives its host, `kill -9` included: the host records the process groups it starts, and
// the next host ends those of a dead one. Real processes through the real CLI bin: a stdio server that
// keeps running after its stdin ends (a heartbeat timer, SIGHUP ignored) and spawns a child of its own.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { HOST_LOG_FILE } from '../../../src/host/host-process.ts';
import { hostDir } from '../../../src/host/paths.ts';
import { recordsDir } from '../../../src/host/process-records.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { isAlive, processesInGroup, stdioFixture } from '../../fixtures/servers/spawn.ts';
import { hostsUnder, removeTempRoot } from '../../support/hosts.ts';
import { runCliBin } from '../../support/output-channels.ts';
import { eventually, HostWorld } from './harness.ts';

let root: string;
let dirs: { cwd: string; home: string; agentDir: string };
let starts: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'orphans-'));
  dirs = { cwd: join(root, 'p'), home: join(root, 'h'), agentDir: join(root, 'a') };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  starts = join(root, 'starts');
  writeFileSync(
    join(dirs.agentDir, 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        stubborn: {
          ...stdioFixture(['--outlive-stdin', '--spawn-grandchild', '--starts-file', starts]),
          share: 'user',
        },
      },
    }),
  );
});

afterEach(async () => {
  // Whatever a failed run left of the servers it started (they are group leaders), by pid.
  for (const pid of existsSync(starts) ? serverPids() : [])
    if (processesInGroup(pid).length > 0)
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
  await removeTempRoot(root);
});

const call = () => runCliBin(['call', 'stubborn__echo', '{"text":"hi"}'], dirs);
const serverPids = () => readFileSync(starts, 'utf8').trim().split('\n').map(Number);

it('after `kill -9` of the host, the next host ends its servers (whole process group) within 15 s', async () => {
  const first = await call();
  expect(first.code, first.stderr).toBe(0);
  const [oldHost] = hostsUnder(root);
  expect(oldHost).toBeDefined();
  const [server] = serverPids();
  const group = processesInGroup(server!).map((p) => p.pid);
  // The server and the child it spawned.
  expect(group.length).toBe(2);
  // On record while the host runs.
  const records = readdirSync(recordsDir(dirs.agentDir));
  expect(records).toHaveLength(1);
  expect(readFileSync(join(recordsDir(dirs.agentDir), records[0]!), 'utf8')).toContain(`"pgid":${server}`);

  process.kill(oldHost!.pid, 'SIGKILL');
  await eventually(() => expect(isAlive(oldHost!.pid)).toBe(false), 5_000);
  // The server does not end on its stdin's end.
  expect(group.every(isAlive)).toBe(true);

  const second = call();
  const newHost = await eventually(() => {
    const [host] = hostsUnder(root).filter((h) => h.pid !== oldHost!.pid);
    expect(host).toBeDefined();
    return host!;
  }, 20_000);
  const up = Date.now();
  await eventually(() => expect(group.filter(isAlive)).toEqual([]), 15_000);
  const gone = Date.now() - up;
  const answered = await second;
  expect(answered.code, answered.stderr).toBe(0);
  expect(answered.stdout).toContain('hi');
  // The new host's own copy runs on, on record; the dead host's record is gone.
  const [, fresh] = serverPids();
  expect(isAlive(fresh!)).toBe(true);
  await eventually(() => {
    const left = readdirSync(recordsDir(dirs.agentDir));
    expect(left).toHaveLength(1);
    expect(left[0]).toContain(`host-${newHost.pid}-`);
  }, 5_000);
  const log = readFileSync(join(hostDir(dirs.agentDir), HOST_LOG_FILE), 'utf8');
  expect(log).toContain('ended the servers of a host that had died');
  const at = (pattern: RegExp) =>
    Date.parse(
      log
        .split('\n')
        .findLast((line) => pattern.test(line))
        ?.slice(0, 24) ?? '',
    );
  const ended = at(/ended the servers of a host that had died/) - at(/host started/);
  console.log(
    `the next host ended the orphans ${ended} ms after it listened; gone ${gone} ms after its process appeared`,
  );
}, 90_000);

it('a host that stops normally leaves no record behind', async () => {
  expect((await call()).code).toBe(0);
  const [host] = hostsUnder(root);
  expect(readdirSync(recordsDir(dirs.agentDir))).toHaveLength(1);
  const stopped = await runCliBin(['host', 'stop'], dirs);
  expect(stopped.code, stopped.stderr).toBe(0);
  await eventually(() => expect(isAlive(host!.pid)).toBe(false), 15_000);
  expect(readdirSync(recordsDir(dirs.agentDir))).toEqual([]);
  expect(serverPids().filter(isAlive)).toEqual([]);
}, 60_000);

it('a session that sees its host killed ends the servers it left at once, before any new host', async () => {
  const world = new HostWorld();
  let leader: number | undefined;
  try {
    const connection = await world
      .session('A')
      .connect(stdioDefinition(['--outlive-stdin', '--spawn-grandchild'], { inheritEnv: false }));
    const hostPid = (await world.status())!.pid;
    leader = connection.pid!;
    const group = processesInGroup(leader).map((p) => p.pid);
    expect(group.length).toBe(2);
    process.kill(hostPid, 'SIGKILL');
    await eventually(() => expect(group.filter(isAlive)).toEqual([]), 10_000);
    expect(hostsUnder(world.root)).toEqual([]);
  } finally {
    if (leader !== undefined && processesInGroup(leader).length > 0) process.kill(-leader, 'SIGKILL');
    await world.dispose();
  }
}, 60_000);
