// A host nobody can reach stops at once: its socket file removed (its agent dir deleted, as a finished
// test or a user cleaning up does) or replaced by another file on its path. It never removes a socket
// that is no longer its own.

import { existsSync, mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { attachToHost, socketOf } from '../../../src/adapters/host/start-host.ts';
import { fileIdentity } from '../../../src/host/own-socket.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { isAlive } from '../../fixtures/servers/spawn.ts';
import { eventually, type HostWorld, useHostWorld } from './harness.ts';

const worldOf = useHostWorld();
let world: HostWorld;
beforeEach(() => {
  world = worldOf();
});

/** A running host with one server started in it: its pid and the server's. */
async function warmHost(): Promise<{ hostPid: number; serverPid: number }> {
  const connection = await world.session('A').connect(stdioDefinition([], { inheritEnv: false }));
  const serverPid = connection.pid!;
  await connection.close();
  const status = await world.status();
  return { hostPid: status!.pid, serverPid };
}

describe('the host and its socket file', () => {
  it('its agent dir deleted: the host stops within seconds, and its server with it', async () => {
    const { hostPid, serverPid } = await warmHost();
    rmSync(world.agentDir, { recursive: true, force: true });
    await eventually(() => expect(isAlive(hostPid)).toBe(false), 5_000);
    await eventually(() => expect(isAlive(serverPid)).toBe(false), 5_000);
    // Its last log lines did not bring the folder back.
    expect(existsSync(world.agentDir)).toBe(false);
  });

  it('its agent dir deleted while its socket lives elsewhere (a long path): the host stops all the same', async () => {
    const agentDir = join(world.root, 'x'.repeat(90), 'agent');
    mkdirSync(agentDir, { recursive: true });
    const socket = socketOf({ agentDir });
    expect(socket.startsWith(agentDir)).toBe(false);
    const client = await attachToHost({ agentDir, label: 'long' });
    const hostPid = client.hostPid;
    world.remember(hostPid);
    client.close();
    rmSync(agentDir, { recursive: true, force: true });
    await eventually(() => expect(isAlive(hostPid)).toBe(false), 8_000);
    expect(existsSync(socket)).toBe(false);
  });

  it('its socket replaced by another file: the host stops and leaves that file alone', async () => {
    const { hostPid } = await warmHost();
    unlinkSync(world.socket);
    writeFileSync(world.socket, 'not the host');
    const other = fileIdentity(world.socket);
    await eventually(() => expect(isAlive(hostPid)).toBe(false), 5_000);
    expect(fileIdentity(world.socket)).toBe(other);
  });
});
