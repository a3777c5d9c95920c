// The host pushes its instance actor's state to the sessions attached to it: a session's own server
// actor holds the host-backed connection, and what /mcp and `pi-mcp-actors status` say is read from
// that actor's snapshot. And a session can restart the host's copy (`/mcp reconnect`): the host holds
// back while other sessions have calls running on it (it says how many) until the restart is forced;
// the other sessions then see the restart and their calls in flight are told who cut them off.

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { serverLogic } from '../../../src/actors/server-actor.ts';
import type { Connector } from '../../../src/adapters/mcp/connection-port.ts';
import { describeServers } from '../../../src/commands/server-status.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { eventually, HostWorld, type Session } from './harness.ts';

let world: HostWorld;

beforeEach(() => {
  world = new HostWorld();
});

afterEach(async () => {
  await world.dispose();
});

/** A session's connector as its runtime has it: connections attach to the host. */
function connectorOf(session: Session): Connector {
  return (definition, options) =>
    session.connect(definition, options.host, undefined, { signal: options.signal });
}

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

it("a session's server actor shows the host's copy retrying: backoff with its next try, then connected again", async () => {
  const failFile = join(world.root, 'fail-start');
  const definition = stdioDefinition(['--fail-start-while', failFile], {
    inheritEnv: false,
    lifecycle: 'keep-alive',
    healthCheckMs: 0,
  });
  const actor = createActor(serverLogic, {
    input: { definition, generation: 0, connector: connectorOf(world.session('A')) },
  });
  actor.start();
  try {
    actor.send({ type: 'CONNECT' });
    await waitFor(actor, (s) => s.hasTag('usable'), { timeout: 15_000 });
    const view = () =>
      describeServers({ [definition.name]: actor }, { secrets: new SecretValues() }).split('\n');
    const hostPid = actor.getSnapshot().context.connection?.sharedHost?.pid;
    expect(hostPid).toBeGreaterThan(0);
    expect(view()[0]).toMatch(new RegExp(`^fixture-stdio: connected, shared \\(host pid ${hostPid}\\) — `));
    const firstPid = actor.getSnapshot().context.connection!.pid!;

    // The host's copy dies and cannot start again: the host's actor retries; the session stays attached.
    writeFileSync(failFile, '');
    process.kill(firstPid, 'SIGKILL');
    await eventually(() => {
      const instance = actor.getSnapshot().context.connection?.sharedHost?.instance;
      expect(instance).toMatchObject({ state: 'backoff', tags: ['failed', 'failsFast'] });
      expect(instance?.nextRetryAt).toBeGreaterThan(Date.now());
      expect(instance?.lastError?.kind).toBe('exited');
      expect(view()[0]).toMatch(
        new RegExp(
          `^fixture-stdio: connected, shared \\(host pid ${hostPid}\\), host: backoff, next try in \\d+`,
        ),
      );
      expect(view().join('\n')).toMatch(/the host's last error: .*fail-start-while/);
    });
    expect(actor.getSnapshot().matches('connected')).toBe(true);
    // A call meanwhile is told the host's state.
    await expect(actor.getSnapshot().context.connection!.callTool('echo', { text: 'now?' })).rejects.toThrow(
      /"fixture-stdio" is not connected in the shared host \((backoff|connecting)/,
    );

    // It starts again by the host's backoff: the same connection calls the new copy.
    rmSync(failFile);
    await eventually(() => {
      expect(actor.getSnapshot().context.connection?.sharedHost?.instance?.state).toBe('connected');
      expect(view()[0]).not.toContain('host:');
    }, 20_000);
    const connection = actor.getSnapshot().context.connection!;
    expect(connection.pid).not.toBe(firstPid);
    expect(connection.pid).toBe((await world.status())?.instances[0]?.pid);
    expect(text(await connection.callTool('echo', { text: 'back' }))).toContain('back');
  } finally {
    actor.stop();
  }
});

it("a lazy instance whose server died ends the attached sessions' connections (they reconnect on use)", async () => {
  const a = await world.session('A').connect(stdioDefinition([], { inheritEnv: false }));
  const events: string[] = [];
  a.onEvent((event) => events.push(event.type));
  process.kill(a.pid!, 'SIGKILL');
  await eventually(() => expect(events).toContain('closed'));
  expect(a.sharedHost?.instance?.state).toBe('closed');
});

it("one session restarts the host's copy (held back for the other's call until forced): the other sees it restart and its call in flight says why it failed", async () => {
  const holdFile = join(world.root, 'hold-start');
  const definition = stdioDefinition(['--wait-while', holdFile], { inheritEnv: false, healthCheckMs: 0 });
  const a = await world.session('A').connect(definition);
  const b = await world.session('B').connect(definition);
  expect(b.pid).toBe(a.pid);
  const firstPid = a.pid!;
  const events: string[] = [];
  b.onEvent((event) => events.push(event.type));
  const inFlight = b.callTool('hang', {}, { timeoutMs: 30_000 });
  await eventually(async () => expect((await world.status())?.instances[0]).toMatchObject({ inFlight: 1 }));

  // Held back: B's call runs on it; the host says so and restarts nothing.
  expect(await a.sharedHost!.restart!()).toEqual({ calls: 1, callers: 1, attached: 1 });
  expect((await world.status())?.instances[0]).toMatchObject({
    state: 'connected',
    pid: firstPid,
    inFlight: 1,
  });

  writeFileSync(holdFile, ''); // the new copy waits at its start until the test lets it go
  expect(await a.sharedHost!.restart!(true)).toBeUndefined();
  await expect(inFlight).rejects.toThrow(
    'another session restarted "fixture-stdio" (/mcp reconnect) while the call ran',
  );
  await eventually(() => {
    expect(b.sharedHost?.instance?.state).toBe('connecting');
    expect(a.sharedHost?.instance?.state).toBe('connecting');
  });
  // A call made while the fresh copy starts waits for it.
  const waiting = b.callTool('echo', { text: 'waited' }, { timeoutMs: 30_000 });
  rmSync(holdFile);
  expect(text(await waiting)).toContain('waited');
  await eventually(() => expect(b.sharedHost?.instance?.state).toBe('connected'));
  expect(b.pid).not.toBe(firstPid);
  // Still attached (no end), and told to re-read its lists: the fresh copy may offer others.
  expect(events).not.toContain('closed');
  await eventually(() =>
    expect(events).toEqual(expect.arrayContaining(['tools-changed', 'resources-changed', 'prompts-changed'])),
  );
  expect(text(await b.callTool('echo', { text: 'from B' }))).toContain('from B');
  expect(text(await a.callTool('echo', { text: 'from A' }))).toContain('from A');
  expect((await world.status())?.instances).toEqual([
    expect.objectContaining({ state: 'connected', attached: 2, pid: b.pid }),
  ]);
});
