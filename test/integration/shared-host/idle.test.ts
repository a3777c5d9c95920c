// The host's idle exit, in process on a real socket with XState's SimulatedClock: no real time passes,
// so "never while a session is attached" is asserted for as long as we like, and the exit after the
// last detach at exactly the idle time.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { HostClient } from '../../../src/adapters/host/host-client.ts';
import { type RunningHost, startHost } from '../../../src/host/host-server.ts';
import { WIRE_PROTOCOL } from '../../../src/host/protocol.ts';
import type { Logger } from '../../../src/logger.ts';
import { LINE_GREETING_DEADLINE_MS } from '../../../src/machines/host-line.machine.ts';
import { ConnectError } from '../../../src/ports/mcp.ts';
import { SecretValues } from '../../../src/redact/index.ts';

const IDLE_MS = 60_000;
const VERSION = '0.0.0-idle-test';
const STOPS = 'no session attached: the host stops';
const KEY = randomBytes(32);

let root: string;
let clock: SimulatedClock;
let host: RunningHost;
let exited: boolean;
let logged: string[];
const clients: HostClient[] = [];

const memoryLogger = (): Logger => {
  const line = (msg: string) => void logged.push(msg);
  const logger: Logger = { debug: line, info: line, warn: line, error: line, child: () => logger };
  return logger;
};

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'pmh-idle-'));
  clock = new SimulatedClock();
  exited = false;
  logged = [];
  host = await startHost({
    socketPath: join(root, 'host', 'host.sock'),
    version: VERSION,
    build: VERSION,
    key: KEY,
    // No server is attached in these tests: only sessions' lines come and go.
    connector: async () => {
      throw new ConnectError('spawn', 'no servers here');
    },
    idleMs: IDLE_MS,
    clock,
    secrets: new SecretValues(),
    logger: memoryLogger(),
    onExit: () => {
      exited = true;
    },
  });
  expect(host.outcome).toBe('listening');
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await host.close();
  rmSync(root, { recursive: true, force: true });
});

/**
 * A session on the line: its first word after the proof makes it one (here it asks for its instance
 * actors' events; a line that says nothing only stands by).
 */
async function attach(label: string): Promise<HostClient> {
  const client = await HostClient.open(join(root, 'host', 'host.sock'), {
    build: VERSION,
    key: KEY,
    label,
    inspection: { on: () => true, relay: () => {} },
  });
  clients.push(client);
  await vi.waitFor(() => expect(host.status().clients.map((c) => c.label)).toContain(label));
  return client;
}

/** Closes a session's line and waits until the host has let it go (its idle timer is armed then). */
async function detach(client: HostClient, label: string): Promise<void> {
  client.close();
  await vi.waitFor(() => expect(host.status().clients.map((c) => c.label)).not.toContain(label));
}

/** The host's exit has begun (the timer fired) and then ended (onExit). */
async function expectExit(): Promise<void> {
  expect(logged).toContain(STOPS);
  await vi.waitFor(() => expect(exited).toBe(true));
}

it('while a session is attached the host never exits, however long', async () => {
  await attach('A');
  clock.increment(IDLE_MS * 1_000);
  expect(logged).not.toContain(STOPS);
  expect(exited).toBe(false);
});

it('after the last session detaches it exits after exactly its idle time', async () => {
  const a = await attach('A');
  const b = await attach('B');
  await detach(a, 'A');
  clock.increment(IDLE_MS * 10);
  expect(logged).not.toContain(STOPS);

  await detach(b, 'B');
  clock.increment(IDLE_MS - 1);
  expect(logged).not.toContain(STOPS);
  clock.increment(1);
  await expectExit();
});

it('a session attaching again before the idle time is up keeps it; its detach starts the full idle time again', async () => {
  await detach(await attach('A'), 'A');
  clock.increment(IDLE_MS - 1);
  const again = await attach('A again');
  clock.increment(IDLE_MS * 10);
  expect(logged).not.toContain(STOPS);

  await detach(again, 'A again');
  clock.increment(IDLE_MS - 1);
  expect(logged).not.toContain(STOPS);
  clock.increment(1);
  await expectExit();
});

it('a host nobody ever attached to exits after its idle time', async () => {
  clock.increment(IDLE_MS - 1);
  expect(logged).not.toContain(STOPS);
  clock.increment(1);
  await expectExit();
});

it('`pi-mcp-actors host` asking its status neither holds the host nor restarts the idle time', async () => {
  await detach(await attach('A'), 'A');
  clock.increment(IDLE_MS - 10);
  const probe = await HostClient.open(join(root, 'host', 'host.sock'), {
    build: VERSION,
    key: KEY,
    label: 'pi-mcp-actors host',
  });
  clients.push(probe);
  const status = await probe.status();
  // It says when it stops; no session is attached.
  expect(status.stopsAt).toBeGreaterThan(Date.now() - IDLE_MS);
  expect(status.idleMs).toBe(IDLE_MS);
  clock.increment(10);
  await expectExit();
});

it('while a session is attached it says no stop time', async () => {
  await attach('A');
  const probe = await HostClient.open(join(root, 'host', 'host.sock'), {
    build: VERSION,
    key: KEY,
    label: 'pi-mcp-actors host',
  });
  clients.push(probe);
  expect((await probe.status()).stopsAt).toBeUndefined();
});

it('a line that says hello and never proves itself is closed after its greeting deadline, and the host still stops on time', async () => {
  const line = connect(join(root, 'host', 'host.sock'));
  const closed = new Promise<void>((resolve) => line.once('close', () => resolve()));
  let received = '';
  line.on('data', (chunk) => {
    received += chunk.toString();
  });
  line.write(
    `${JSON.stringify({ t: 'hello', protocol: WIRE_PROTOCOL, build: VERSION, pid: process.pid, label: 'stuck', nonce: 'n'.repeat(32) })}\n`,
  );
  // The host took the hello: its welcome came back. No proof follows.
  await vi.waitFor(() => expect(received).toContain('"welcome"'));
  clock.increment(LINE_GREETING_DEADLINE_MS - 1);
  expect(line.destroyed).toBe(false);
  clock.increment(1);
  await closed;
  // A line that never proved itself restarts no idle time: the host stops once it has let go of it.
  clock.increment(IDLE_MS - LINE_GREETING_DEADLINE_MS - 1);
  expect(logged).not.toContain(STOPS);
  clock.increment(1);
  await vi.waitFor(() => expect(logged).toContain(STOPS));
  await vi.waitFor(() => expect(exited).toBe(true));
});

it('a proven line that says nothing (a session greeted ahead of its first use) stands by: the host still stops on time', async () => {
  const silent = await HostClient.open(join(root, 'host', 'host.sock'), {
    build: VERSION,
    key: KEY,
    label: 'ahead',
  });
  clients.push(silent);
  await vi.waitFor(() => expect(host.status().clients.map((c) => c.label)).toContain('ahead'));
  expect(host.status().stopsAt).toBeDefined();
  clock.increment(IDLE_MS - 1);
  expect(logged).not.toContain(STOPS);
  clock.increment(1);
  await expectExit();
});
