// The host's instances are server actors of the real server.machine.ts: the host's status reads their
// snapshots (state and tags), their idle close and health pings are the machine's, and an attached
// session holds its instance like a call in flight.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ConnectionEvent } from '../../../src/ports/connection.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { isAlive } from '../../fixtures/servers/spawn.ts';
import { eventually, HostWorld } from './harness.ts';

let world: HostWorld;

beforeEach(() => {
  world = new HostWorld();
});

afterEach(async () => {
  await world.dispose();
});

it("the host's status shows each instance's machine state and tags", async () => {
  const connection = await world.session('A').connect(stdioDefinition([], { inheritEnv: false }));
  expect((await world.status())?.instances).toEqual([
    expect.objectContaining({ state: 'connected', tags: ['usable'], attached: 1, pid: connection.pid }),
  ]);
});

it('an instance idles out by its idle timeout only once no session is attached', async () => {
  const connection = await world
    .session('A')
    .connect(stdioDefinition([], { inheritEnv: false, idleTimeoutMs: 300 }));
  const serverPid = connection.pid!;
  // Attached, it is held like a call in flight (a server with calls in flight never idles out:
  // test/machine), though no call runs.
  expect((await world.status())?.instances).toEqual([
    expect.objectContaining({ state: 'connected', attached: 1, inFlight: 0, held: 1 }),
  ]);
  await connection.close();
  await eventually(async () => {
    expect((await world.status())?.instances).toEqual([]);
    expect(isAlive(serverPid)).toBe(false);
  });
  expect(readFileSync(join(dirname(world.socket), 'host.log'), 'utf8')).toContain('server closed');
});

it('with nobody attached, an eager instance is pinged by its actor: one that stops answering is closed, and it starts again by itself', async () => {
  const connection = await world.session('A').connect(
    stdioDefinition([], {
      inheritEnv: false,
      lifecycle: 'eager',
      healthCheckMs: 200,
      idleTimeoutMs: 60_000,
    }),
  );
  const serverPid = connection.pid!;
  await connection.close();
  await eventually(async () =>
    expect((await world.status())?.instances).toEqual([expect.objectContaining({ attached: 0 })]),
  );
  process.kill(serverPid, 'SIGSTOP');
  try {
    // Its process is ended; the instance is kept (nobody attached) and retries by itself, as eager.
    await eventually(() => {
      expect(isAlive(serverPid)).toBe(false);
      expect(readFileSync(join(dirname(world.socket), 'host.log'), 'utf8')).toContain(
        'no answer to a health check within 200 ms',
      );
    });
    await eventually(async () =>
      expect((await world.status())?.instances).toEqual([
        expect.objectContaining({ state: 'connected', attached: 0, pid: expect.not.toBeOneOf([serverPid]) }),
      ]),
    );
  } finally {
    if (isAlive(serverPid)) {
      process.kill(serverPid, 'SIGCONT');
      process.kill(serverPid, 'SIGKILL');
    }
  }
});

it('a keep-alive instance whose server died reconnects by its backoff: the attachments end with its next try, and it is kept, unattached, until then', async () => {
  const keepAlive = () =>
    stdioDefinition([], { inheritEnv: false, lifecycle: 'keep-alive', healthCheckMs: 0 });
  const a = await world.session('A').connect(keepAlive());
  const events: ConnectionEvent[] = [];
  a.onEvent((event) => events.push(event));
  const firstPid = a.pid!;
  process.kill(firstPid, 'SIGKILL');
  await eventually(() =>
    expect(events).toContainEqual({
      type: 'closed',
      error: expect.stringContaining('connection lost'),
      farEnd: {
        state: 'backoff',
        retryAt: expect.any(Number),
        lastError: { kind: 'exited', detail: expect.objectContaining({ cause: 'connectionLost' }) },
      },
    }),
  );
  // Nobody attached now; the instance retries by itself and is connected again.
  await eventually(async () => {
    const [instance] = (await world.status())?.instances ?? [];
    expect(instance).toMatchObject({ state: 'connected', attached: 0 });
    expect(instance?.pid).not.toBe(firstPid);
  });
  const b = await world.session('B').connect(keepAlive());
  expect(b.pid).toBe((await world.status())?.instances[0]?.pid);
  expect(b.pid).not.toBe(firstPid);
});

it('an instance that failed, with nobody attached, is kept for its idle time, then stopped and forgotten', async () => {
  const broken = stdioDefinition([], {
    inheritEnv: false,
    command: `${world.root}/no-such-command`,
    idleTimeoutMs: 1_500,
  });
  await expect(world.session('A').connect(broken)).rejects.toMatchObject({ kind: 'spawn' });
  expect((await world.status())?.instances).toEqual([expect.objectContaining({ attached: 0 })]);
  await eventually(async () => expect((await world.status())?.instances).toEqual([]));
  expect(readFileSync(join(dirname(world.socket), 'host.log'), 'utf8')).toContain(
    'nobody attached: the server is stopped',
  );
});
