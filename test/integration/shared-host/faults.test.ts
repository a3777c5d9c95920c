// The shared host's faults, with real processes: killed mid-call, two starters at once, a stale socket
// from a crashed host, a host of another version, and 200 attach/detach cycles.

import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { HostConnection } from '../../../src/adapters/host/host-connection.ts';
import { openHost, spawnHost } from '../../../src/adapters/host/start-host.ts';
import { prepareHostPlace } from '../../../src/host/host-place.ts';
import type { ConnectionEvent } from '../../../src/ports/connection.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { isAlive, listDescendants } from '../../fixtures/servers/spawn.ts';
import { eventually, type HostWorld, sessionsOf, textOf, useHostWorld } from './harness.ts';

const worldOf = useHostWorld();
let world: HostWorld;
beforeEach(() => {
  world = worldOf();
});

const fixture = () => stdioDefinition([], { inheritEnv: false });

describe('shared host faults', () => {
  it('killed (kill -9) mid-call: the call fails at once with a clear message, the next call starts a new host', async () => {
    const session = world.session('A');
    const connection = await session.connect(fixture());
    const events: ConnectionEvent[] = [];
    connection.onEvent((e) => events.push(e));
    const first = await world.status();
    const serverPid = connection.pid!;
    const started = Date.now();
    const call = connection.callTool('hang', {}, { timeoutMs: 20_000 });
    call.catch(() => {});
    await eventually(async () => expect((await world.status())?.instances[0]?.inFlight).toBe(1));
    process.kill(first!.pid, 'SIGKILL');
    await expect(call).rejects.toMatchObject({
      kind: 'dropped',
      message: expect.stringMatching(
        /shared MCP host \(pid \d+\) went away mid-call.*next call starts a new host/,
      ),
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(events).toContainEqual({ type: 'closed', error: expect.stringContaining('went away') });
    // The server the dead host ran ends with it (its stdin closed): nothing is left behind.
    await eventually(() => expect(isAlive(serverPid)).toBe(false), 10_000);

    const again = await session.connect(fixture());
    expect(again).toBeInstanceOf(HostConnection);
    expect(textOf(await again.callTool('echo', { text: 'after the crash' }))).toContain('after the crash');
    const second = await world.status();
    expect(second?.pid).not.toBe(first?.pid);
  });

  it('a host that stops answering (SIGSTOP): the call fails by its own timeout, not never', async () => {
    const connection = await world.session('A').connect(fixture());
    const hostPid = (await world.status())!.pid;
    process.kill(hostPid, 'SIGSTOP');
    try {
      const started = Date.now();
      await expect(connection.callTool('echo', { text: 'x' }, { timeoutMs: 300 })).rejects.toMatchObject({
        kind: 'timeout',
        message: expect.stringContaining('shared MCP host did not answer'),
      });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      process.kill(hostPid, 'SIGCONT');
    }
    expect(textOf(await connection.callTool('echo', { text: 'resumed' }))).toContain('resumed');
  });

  it('with no session attached for its idle time the host exits, closing its servers and its socket', async () => {
    const idle = process.env.PI_MCP_ACTORS_HOST_IDLE_MS;
    process.env.PI_MCP_ACTORS_HOST_IDLE_MS = '300';
    try {
      const connection = await world.session('A').connect(fixture());
      const hostPid = (await world.status())!.pid;
      const serverPid = connection.pid!;
      // That it never exits while a session is attached, and exits after exactly its idle time, is
      // asserted on a SimulatedClock (idle.test.ts); here the real process exits and cleans up.
      await connection.close();
      await eventually(() => {
        expect(isAlive(hostPid)).toBe(false);
        expect(isAlive(serverPid)).toBe(false);
        expect(existsSync(world.socket)).toBe(false);
      }, 10_000);
      // What happened is in the host's log, beside its socket.
      const log = readFileSync(join(dirname(world.socket), 'host.log'), 'utf8');
      for (const line of [
        'host started',
        'starting a server',
        'server connected',
        'no session attached: the host stops',
        'host stopped',
      ])
        expect(log).toContain(line);
    } finally {
      if (idle === undefined) delete process.env.PI_MCP_ACTORS_HOST_IDLE_MS;
      else process.env.PI_MCP_ACTORS_HOST_IDLE_MS = idle;
    }
  });

  it('two starters at once end with one host', async () => {
    const pids = [spawnHost(world.agentDir, world.build).pid!, spawnHost(world.agentDir, world.build).pid!];
    for (const pid of pids) world.remember(pid);
    await eventually(() => expect(pids.filter(isAlive)).toHaveLength(1), 15_000);
    const status = await world.status();
    expect(pids.filter(isAlive)).toEqual([status?.pid]);
  });

  it('two sessions needing the host at once attach to the same one', async () => {
    const [a, b] = await Promise.all([
      world.session('A').connect(fixture()),
      world.session('B').connect(fixture()),
    ]);
    expect((a as HostConnection).instance).toBe((b as HostConnection).instance);
    expect(sessionsOf(await world.status())).toHaveLength(2);
  });

  it("a crashed host's stale socket is detected and replaced", async () => {
    prepareHostPlace(world.agentDir, world.build);
    const squatter = spawn(
      process.execPath,
      [
        '-e',
        // A crashed host's socket is private, as every host makes it.
        `process.umask(0o077); require('net').createServer().listen(${JSON.stringify(world.socket)}, () => console.log('up'))`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => squatter.stdout!.once('data', resolve));
    squatter.kill('SIGKILL');
    await new Promise((resolve) => squatter.once('exit', resolve));
    expect(existsSync(world.socket)).toBe(true);

    const connection = await world.session('A').connect(fixture());
    expect(connection).toBeInstanceOf(HostConnection);
    expect(textOf(await connection.callTool('echo', { text: 'on the new socket' }))).toContain('new socket');
  });

  it('a host of another version is not used', async () => {
    const otherBuild = '0.0.0-other';
    const otherPid = spawnHost(world.agentDir, otherBuild).pid!;
    world.remember(otherPid);
    await eventually(
      () => openHost({ agentDir: world.agentDir, build: otherBuild, label: 'probe' }).then((c) => c.close()),
      15_000,
    );

    const connection = await world.session('A').connect(fixture());
    expect(connection).toBeInstanceOf(HostConnection);
    expect((await world.status())?.pid).not.toBe(otherPid);
  });

  it('something of another version answering on our socket: the session runs the server itself', async () => {
    prepareHostPlace(world.agentDir, world.build);
    const impostor = createServer((socket) => {
      socket.resume();
      socket.write(`${JSON.stringify({ t: 'welcome', version: '9.9.9', pid: 1 })}\n`);
    });
    await new Promise<void>((resolve) => impostor.listen(world.socket, resolve));
    chmodSync(world.socket, 0o600);
    try {
      const session = world.session('A');
      const connection = await session.connect(fixture());
      expect(connection).not.toBeInstanceOf(HostConnection);
      expect(session.inSession).toBe(1);
      expect(textOf(await connection.callTool('echo', { text: 'in session' }))).toContain('in session');
    } finally {
      await new Promise((resolve) => impostor.close(resolve));
    }
  });

  it("200 attach/detach cycles leave the host's fds, processes and instances where they started", async () => {
    const session = world.session('A');
    const warm = await session.connect(fixture());
    const hostPid = (await world.status())!.pid;
    await warm.close();
    const fds = () => readdirSync(`/proc/${hostPid}/fd`).length;
    await eventually(async () => expect(sessionsOf(await world.status())).toHaveLength(0));
    const before = { fds: fds(), children: listDescendants(hostPid).length };
    expect((await world.status())?.instances).toHaveLength(1);

    for (let i = 0; i < 200; i++) {
      const connection = await session.connect(fixture());
      if (i % 50 === 0)
        expect(textOf(await connection.callTool('echo', { text: `cycle ${i}` }))).toContain(`${i}`);
      await connection.close();
    }

    await eventually(async () => {
      const status = await world.status();
      expect(sessionsOf(status)).toHaveLength(0);
      expect(status?.instances).toEqual([
        expect.objectContaining({ attached: 0, inFlight: 0, state: 'connected' }),
      ]);
      expect(fds()).toBe(before.fds);
    });
    expect(listDescendants(hostPid)).toHaveLength(before.children);
  });
});
