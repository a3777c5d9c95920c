// Live inspection of the shared host's instance actors (docs/inspect.md, src/host/host-inspection.ts):
// a session whose inspection is on is sent the events of the instance actors it is attached to,
// redacted, with the host's ids; a session without inspection is sent none; a session that detaches
// hears no more. With a real host process and the stdio fixture.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostClient } from '../../../src/adapters/host/host-client.ts';
import { instanceRequest } from '../../../src/adapters/host/shared-connector.ts';
import { attachToHost } from '../../../src/adapters/host/start-host.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { stdioFixture } from '../../fixtures/servers/spawn.ts';
import { eventually, listed, useHostWorld } from './harness.ts';
import { type InspectEvent, WireSession } from './wire-session.ts';

const worldOf = useHostWorld();
const SECRET = 'hostinspect-secret-7c41e9d2';

describe('inspection of the shared host (wire)', () => {
  let starter: HostClient | undefined;
  afterEach(() => starter?.close());

  it('is sent only to the inspecting sessions attached to the instance, and stops at detach', async () => {
    const world = worldOf();
    starter = await attachToHost({ agentDir: world.agentDir, build: world.build, label: 'starter' });
    world.remember(starter.hostPid);
    const definition = stdioDefinition(['--echo-env', 'FIXTURE_TOKEN'], {
      inheritEnv: false,
      env: { FIXTURE_TOKEN: SECRET },
    });
    const request = instanceRequest(definition, 'user', world.project, {});

    // A: no inspection; it starts the instance, which is connected before anyone inspects.
    const a = await WireSession.open(world, 'A');
    a.send({ t: 'attach', a: 1, request });
    await a.next('attached');

    // B and C inspect, and attach late: each is first sent the instance actor as it is now.
    const b = await WireSession.open(world, 'B');
    const c = await WireSession.open(world, 'C');
    for (const session of [b, c]) {
      session.send({ t: 'inspect', on: true });
      expect(await session.next('inspecting')).toEqual({ t: 'inspecting', on: true });
      session.send({ t: 'attach', a: 1, request });
      await session.next('attached');
    }
    const registration = await eventually(() => {
      const found = b.inspected().find((e) => e.type === '@xstate.actor' && e.systemId);
      if (!found) throw new Error('no registration yet');
      return found;
    });
    expect(registration).toMatchObject({
      systemId: 'host:server:fixture-stdio',
      sessionId: expect.stringMatching(new RegExp(`^host:${starter.hostPid}:x:\\d+$`)),
    });
    expect(JSON.stringify((registration.snapshot as { value: unknown }).value)).toContain('connected');
    // The host's known secrets redacted it before it left: the server's stderr echoed the token.
    const stderrTail = (registration.snapshot as { context: { stderrTail: string } }).context.stderrTail;
    expect(stderrTail).toContain('FIXTURE_TOKEN=');
    expect(JSON.stringify(b.inspected())).not.toContain(SECRET);

    // B detaches; a restart by A then moves the instance through closing, connecting, connected. The
    // attachments end once the old copy has closed (their sessions' actors would attach again at once):
    // A and C attach again, and C, inspecting, is first sent the actor as it is then.
    b.send({ t: 'detach', a: 1 });
    await eventually(async () => {
      const status = await world.status();
      expect(status?.instances[0]?.attached).toBe(2);
    });
    const bSeen = b.received.length;
    const cSeen = c.received.length;
    const attachAgain = async (session: WireSession, from: number, now: number) => {
      await eventually(() =>
        expect(session.received.slice(from)).toContainEqual(
          expect.objectContaining({ t: 'event', event: expect.objectContaining({ type: 'closed' }) }),
        ),
      );
      session.send({ t: 'attach', a: now, request });
      await session.next('attached', from);
    };
    const aSeen = a.received.length;
    a.send({ t: 'restart', a: 1 });
    await Promise.all([attachAgain(a, aSeen, 2), attachAgain(c, cSeen, 2)]);
    const rootId = registration.sessionId;
    await eventually(() => {
      const states = c
        .inspected(cSeen)
        .filter((e) => e.sessionId === rootId && e.snapshot !== undefined)
        .map((e) => JSON.stringify((e.snapshot as { value: unknown }).value));
      expect(states.some((s) => s.includes('closing'))).toBe(true);
      expect(states.at(-1)).toContain('connected');
    });
    // A round trip on B's line: whatever the host had written to B by now has arrived.
    b.send({ t: 'status' });
    await b.next('status', bSeen);
    expect(b.inspected(bSeen)).toEqual([]);

    // C turns inspection off: a second restart, while C is attached, sends it nothing either.
    c.send({ t: 'inspect', on: false });
    await c.next('inspecting', c.received.length);
    const cOff = c.received.length;
    const aAgain = a.received.length;
    a.send({ t: 'restart', a: 2 });
    await Promise.all([attachAgain(a, aAgain, 3), attachAgain(c, cOff, 3)]);
    await eventually(async () => expect((await world.status())?.instances[0]?.state).toBe('connected'));
    c.send({ t: 'status' });
    await c.next('status', cOff);
    expect(c.inspected(cOff)).toEqual([]);

    // A never inspected: not one inspection event on its line.
    expect(a.received.filter((m) => m.t === 'inspect')).toEqual([]);
    expect(a.received.some((m) => m.t === 'state')).toBe(true);
    for (const session of [a, b, c]) session.close();
  });
});

describe('a Pi session inspecting to a JSONL file', () => {
  it("sees the host's instance actor go connecting → connected, redacted", async () => {
    const world = worldOf();
    const fixture = stdioFixture(['--echo-env', 'FIXTURE_TOKEN']);
    writeFileSync(
      join(world.agentDir, 'mcp.json'),
      JSON.stringify({
        settings: { sharedHost: true },
        mcpServers: {
          fixture: { ...fixture, inheritEnv: false, lifecycle: 'eager', env: { FIXTURE_TOKEN: SECRET } },
        },
      }),
    );
    const file = join(world.root, 'events.jsonl');
    await world.piSession(listed('fixture'), { PI_MCP_INSPECT: file });
    const hostPid = (await world.status())?.pid;
    expect(hostPid).toBeDefined();

    const read = () =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as InspectEvent);
    const states = await eventually(() => {
      const events = read();
      const root = events.find((e) => e.type === '@xstate.actor' && e.systemId === 'host:server:fixture');
      if (!root) throw new Error('the host actor is not registered yet');
      expect(root.sessionId).toMatch(new RegExp(`^host:${hostPid}:`));
      const values = events
        .filter((e) => e.type === '@xstate.snapshot' && e.sessionId === root.sessionId)
        .map((e) => (e.snapshot as { value: unknown }).value);
      const tops = values.map((v) => (typeof v === 'string' ? v : Object.keys(v as object)[0]));
      expect(tops).toContain('connected');
      return tops;
    });
    expect(states.indexOf('connecting')).toBeGreaterThanOrEqual(0);
    expect(states.indexOf('connecting')).toBeLessThan(states.indexOf('connected'));
    // The session's own actor is there too, under its own name.
    expect(read().some((e) => e.type === '@xstate.actor' && e.systemId === 'server:fixture')).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('FIXTURE_TOKEN=');
    expect(text).not.toContain(SECRET);
  });
});
