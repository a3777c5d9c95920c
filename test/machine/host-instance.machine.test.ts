// The host's instance chart on XState's SimulatedClock: it invokes the real server chart (scripted
// connector), its attachments are its children and their calls theirs, and with nobody attached it
// is stopped after exactly its idle time (a failed one kept that long first), or at once after a
// clean close.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, SimulatedClock, waitFor } from 'xstate';
import {
  callChildId,
  callsInFlight,
  hostAttachmentMachine,
} from '../../src/machines/host-attachment.machine.ts';
import { attachmentId, hostInstanceMachine } from '../../src/machines/host-instance.machine.ts';
import { definition, logicWithJitter, scriptedConnector } from './fakes.ts';
import { fakeCalls } from './host-calls-fake.ts';

const IDLE_MS = 60_000;
const A = attachmentId(1, 1);
const B = attachmentId(2, 1);

afterEach(() => {
  vi.useRealTimers();
});

function instance() {
  vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
  const { connector, attempts, connections } = scriptedConnector();
  const clock = new SimulatedClock();
  const calls = fakeCalls();
  const seen: string[] = [];
  const actor = createActor(
    hostInstanceMachine.provide({
      actors: {
        // As the host provides it: the instance's idle stop is the instance chart's.
        server: logicWithJitter(1).provide({ guards: { closesWhenIdle: () => false } }),
        attachment: hostAttachmentMachine.provide({
          actors: { call: calls.logic },
          actions: {
            sayEnd: ({ context }) => void seen.push(`end ${context.a}`),
            release: ({ context }) => void seen.push(`released ${context.a}`),
          },
        }),
      },
      actions: {
        forgotten: () => void seen.push('forgotten'),
        stoppedUnused: () => void seen.push('stopped unused'),
      },
    }),
    {
      clock,
      input: {
        idleMs: IDLE_MS,
        server: { definition: definition({ idleTimeoutMs: IDLE_MS }), generation: 0, connector },
      },
    },
  ).start();
  const server = () => actor.getSnapshot().children.server!;
  const attachment = (id: string) => actor.getSnapshot().context.attachments[id];
  const attach = (id: string, a = 1) => actor.send({ type: 'ATTACH', id, a, client: id });
  /** Attaches `id` and connects the server for it (as the host's attach does). */
  const attachConnected = async (id: string) => {
    attach(id);
    server().send({ type: 'CONNECT' });
    if (!server().getSnapshot().hasTag('usable')) {
      attempts.at(-1)!.succeed();
      await waitFor(server(), (s) => s.hasTag('usable'));
    }
    attachment(id)!.send({ type: 'ATTACHED' });
  };
  const call = async (id: string, callId: number) => {
    attachment(id)!.send({ type: 'CALL', id: callId, ping: false, work: {} });
    const child = attachment(id)!.getSnapshot().children[callChildId(callId, false)]!;
    await waitFor(child, (s) => s.hasTag('running'));
    return calls.running.get(callId)!;
  };
  const advance = (ms: number) => {
    vi.setSystemTime(Date.now() + ms);
    clock.increment(ms);
  };
  return { actor, server, attachment, attach, attachConnected, call, advance, attempts, connections, seen };
}

describe('hostInstance', () => {
  it('an attach is a child of the instance and holds its server like a call in flight', async () => {
    const { actor, server, attachConnected, attach } = instance();
    await attachConnected(A);
    attach(B, 1);
    expect(Object.keys(actor.getSnapshot().context.attachments).sort()).toEqual([A, B]);
    expect(Object.keys(actor.getSnapshot().children).sort()).toEqual([A, B, 'server']);
    expect(server().getSnapshot().context.inFlight).toBe(2);
    expect(actor.getSnapshot().value).toEqual({ active: 'attached' });
  });

  it("the calls in flight are the attachments' children: counted while they run, gone when answered", async () => {
    const { attachment, attachConnected, call } = instance();
    await attachConnected(A);
    const first = await call(A, 1);
    await call(A, 2);
    expect(callsInFlight(attachment(A)!.getSnapshot().context)).toHaveLength(2);
    first.answer();
    await waitFor(attachment(A)!, (s) => callsInFlight(s.context).length === 1);
  });

  it('a detach ends the attachment (its calls aborted) and lets go of the server', async () => {
    const { actor, server, attachment, attachConnected, call, seen } = instance();
    await attachConnected(A);
    const running = await call(A, 1);
    attachment(A)!.send({ type: 'DETACH' });
    expect(running.signal.aborted).toBe(true);
    expect(actor.getSnapshot().context.attachments).toEqual({});
    expect(actor.getSnapshot().children[A]).toBeUndefined();
    expect(server().getSnapshot().context.inFlight).toBe(0);
    expect(actor.getSnapshot().value).toEqual({ active: 'unattached' });
    expect(seen).toEqual(['released 1']);
  });

  it('nobody attached and nothing in flight: stopped after exactly its idle time, its server closed', async () => {
    const { actor, attachment, attachConnected, advance, connections, seen } = instance();
    await attachConnected(A);
    attachment(A)!.send({ type: 'DETACH' });
    advance(IDLE_MS - 1);
    expect(actor.getSnapshot().value).toEqual({ active: 'unattached' });
    expect(connections[0]!.closeCount).toBe(0);
    advance(1);
    await waitFor(actor, (s) => s.status === 'done');
    expect(connections[0]!.closeCount).toBe(1);
    expect(seen).toEqual(['released 1', 'stopped unused', 'forgotten']);
  });

  it('while a session is attached it is never stopped; an attach before the idle time is up starts it anew', async () => {
    const { actor, attachment, attach, attachConnected, advance } = instance();
    await attachConnected(A);
    advance(IDLE_MS * 5);
    expect(actor.getSnapshot().value).toEqual({ active: 'attached' });
    attachment(A)!.send({ type: 'DETACH' });
    advance(IDLE_MS - 1);
    attach(B);
    attachment(B)!.send({ type: 'DETACH' });
    advance(IDLE_MS - 1);
    expect(actor.getSnapshot().value).toEqual({ active: 'unattached' });
    advance(1);
    expect(actor.getSnapshot().value).not.toEqual({ active: 'unattached' });
  });

  it('a restart with calls in flight: the server closes and connects afresh, the calls stay children until answered', async () => {
    const { actor, server, attachment, attachConnected, call, attempts, connections } = instance();
    await attachConnected(A);
    const running = await call(A, 1);
    actor.send({ type: 'RESTART' });
    expect(actor.getSnapshot().context.restarts).toBe(1);
    await waitFor(server(), (s) => s.hasTag('starting'));
    expect(connections[0]!.closeCount).toBe(1);
    expect(attempts).toHaveLength(2);
    // The call is the host's to answer (it says a restart cut it); until then it is in flight.
    expect(running.signal.aborted).toBe(false);
    expect(callsInFlight(attachment(A)!.getSnapshot().context)).toHaveLength(1);
    attempts[1]!.succeed();
    await waitFor(server(), (s) => s.hasTag('usable'));
    expect(actor.getSnapshot().value).toEqual({ active: 'attached' });
  });

  it('failed with nobody attached: kept for exactly its idle time, then forgotten', async () => {
    const { actor, server, attachment, attach, advance, attempts, seen } = instance();
    attach(A);
    server().send({ type: 'CONNECT' });
    attempts[0]!.fail('spawn');
    await waitFor(server(), (s) => s.hasTag('failed'));
    attachment(A)!.send({ type: 'ATTACH_FAILED' });
    expect(actor.getSnapshot().value).toEqual({ active: 'unattached' });
    advance(IDLE_MS - 1);
    expect(actor.getSnapshot().status).toBe('active');
    expect(server().getSnapshot().context.attempt).toBe(1);
    advance(1);
    await waitFor(actor, (s) => s.status === 'done');
    expect(seen).toEqual(['released 1', 'stopped unused', 'forgotten']);
  });

  it('a clean close with nobody attached (a lazy server that exited): forgotten at once', async () => {
    const { actor, attachment, attachConnected, connections, seen } = instance();
    await attachConnected(A);
    attachment(A)!.send({ type: 'DETACH' });
    connections[0]!.emit({ type: 'closed' });
    await waitFor(actor, (s) => s.status === 'done');
    expect(seen).toEqual(['released 1', 'forgotten']);
  });

  it('a session attaching while it stops holds it again', async () => {
    const { actor, attachment, attachConnected, attach, advance } = instance();
    await attachConnected(A);
    attachment(A)!.send({ type: 'DETACH' });
    advance(IDLE_MS);
    expect(actor.getSnapshot().value).toBe('stopping');
    attach(B);
    expect(actor.getSnapshot().value).toEqual({ active: 'attached' });
  });
});
