// The host's attachment chart (attaching → live → draining → ended) with its calls as children: the
// calls in flight are its children (none counted by hand), the connection's end waits for them, and a
// cancel or a detach stops them, which aborts them.

import { describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import {
  callChildId,
  callsInFlight,
  hostAttachmentMachine,
} from '../../src/machines/host-attachment.machine.ts';
import type { ConnectionEvent } from '../../src/ports/connection.ts';
import { fakeCalls } from './host-calls-fake.ts';

const END: ConnectionEvent = { type: 'closed', error: 'connection lost' };

function attachment() {
  const calls = fakeCalls();
  const seen: string[] = [];
  const actor = createActor(
    hostAttachmentMachine.provide({
      actors: { call: calls.logic },
      actions: {
        sayEnd: ({ context }) => void seen.push(`end ${context.end?.type}`),
        release: () => void seen.push('released'),
      },
    }),
    { input: { a: 1, client: 'client' } },
  ).start();
  const inFlight = () => callsInFlight(actor.getSnapshot().context).length;
  /** Sends a call and waits until it runs on the (fake) server. */
  const call = async (id: number, ping = false) => {
    actor.send({ type: 'CALL', id, ping, work: {} });
    const child = actor.getSnapshot().children[callChildId(id, ping)]!;
    await waitFor(child, (s) => s.hasTag('running'));
    return calls.running.get(id)!;
  };
  return { actor, seen, inFlight, call };
}

describe('hostAttachment', () => {
  it('attaching → live when the attach is answered; a failed attach ends it', () => {
    const ok = attachment();
    expect(ok.actor.getSnapshot().value).toBe('attaching');
    ok.actor.send({ type: 'ATTACHED' });
    expect(ok.actor.getSnapshot().value).toBe('live');

    const failed = attachment();
    failed.actor.send({ type: 'ATTACH_FAILED' });
    expect(failed.actor.getSnapshot().status).toBe('done');
    expect(failed.seen).toEqual(['released']);
  });

  it('the calls in flight are its children: a call counts while it runs, a ping never', async () => {
    const { actor, inFlight, call } = attachment();
    actor.send({ type: 'ATTACHED' });
    const first = await call(1);
    const second = await call(2);
    await call(3, true);
    expect(inFlight()).toBe(2);
    expect(Object.keys(actor.getSnapshot().children).sort()).toEqual(['call:1', 'call:2', 'ping:3']);
    first.answer();
    await waitFor(actor, () => inFlight() === 1);
    expect(Object.keys(actor.getSnapshot().children).sort()).toEqual(['call:2', 'ping:3']);
    second.answer();
    await waitFor(actor, () => inFlight() === 0);
  });

  it('the connection ends: it drains, says the end once its calls have answered (pings aside), then ends', async () => {
    const { actor, seen, call } = attachment();
    actor.send({ type: 'ATTACHED' });
    const first = await call(1);
    const second = await call(2);
    await call(3, true);
    actor.send({ type: 'END', end: END });
    expect(actor.getSnapshot().value).toBe('draining');
    first.answer();
    await waitFor(actor, (s) => !s.children['call:1']);
    expect(actor.getSnapshot().value).toBe('draining');
    expect(seen).toEqual([]);
    second.answer();
    await waitFor(actor, (s) => s.status === 'done');
    expect(seen).toEqual(['end closed', 'released']);
  });

  it('with nothing in flight the end is said at once', () => {
    const { actor, seen } = attachment();
    actor.send({ type: 'ATTACHED' });
    actor.send({ type: 'END', end: END });
    expect(actor.getSnapshot().status).toBe('done');
    expect(seen).toEqual(['end closed', 'released']);
  });

  it("a cancel stops only that call's child, which aborts it", async () => {
    const { actor, inFlight, call } = attachment();
    actor.send({ type: 'ATTACHED' });
    const first = await call(1);
    const second = await call(2);
    actor.send({ type: 'CANCEL', id: 1 });
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.aborted).toBe(false);
    expect(inFlight()).toBe(1);
  });

  it('a detach ends it at once, whatever is in flight: every call is aborted, no end is said', async () => {
    const { actor, seen, call } = attachment();
    actor.send({ type: 'ATTACHED' });
    const first = await call(1);
    const ping = await call(2, true);
    actor.send({ type: 'DETACH' });
    expect(actor.getSnapshot().status).toBe('done');
    expect(first.signal.aborted).toBe(true);
    expect(ping.signal.aborted).toBe(true);
    expect(seen).toEqual(['released']);
  });

  it('a session detaching while it attaches ends it (no end said)', () => {
    const { actor, seen } = attachment();
    actor.send({ type: 'DETACH' });
    expect(actor.getSnapshot().status).toBe('done');
    expect(seen).toEqual(['released']);
  });
});
