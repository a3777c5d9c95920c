// A request put to the shared host, on XState's SimulatedClock (as the link's child: host-link.machine.test.ts): it
// ends answered or failed with what the host said, given up after exactly its own delay (progress
// restarts it when asked to), dropped when the line goes, cancelled by its caller; the host is told to
// stop what was given up or cancelled, never what was answered or dropped.

import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { type HostRequestInput, hostRequestMachine } from '../../src/machines/host-request.machine.ts';

function request(input: HostRequestInput) {
  const clock = new SimulatedClock();
  const cancelled: Array<number | undefined> = [];
  const actor = createActor(
    hostRequestMachine.provide({
      actions: { sendCancel: ({ context }) => void cancelled.push(context.wireId) },
    }),
    { clock, input },
  ).start();
  return { actor, clock, cancelled };
}

describe('hostRequest', () => {
  it('answered: the output carries the value; the host is not told to cancel', () => {
    const { actor, cancelled } = request({ wireId: 3, giveUpMs: 1_000 });
    actor.send({ type: 'ANSWERED', value: { ok: 1 } });
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().output).toEqual({ outcome: 'answered', value: { ok: 1 } });
    expect(cancelled).toEqual([]);
  });

  it('failed: the output carries the error as the host said it', () => {
    const { actor } = request({ wireId: 3, giveUpMs: 1_000 });
    const error = new Error('no such tool');
    actor.send({ type: 'FAILED', error });
    expect(actor.getSnapshot().output).toEqual({ outcome: 'failed', error });
  });

  it('given up after exactly its own delay, and the host is told to stop it', () => {
    const { actor, clock, cancelled } = request({ wireId: 5, giveUpMs: 12_000 });
    clock.increment(11_999);
    expect(actor.getSnapshot().status).toBe('active');
    clock.increment(1);
    expect(actor.getSnapshot().output).toEqual({ outcome: 'givenUp' });
    expect(cancelled).toEqual([5]);
    // An answer after that changes nothing.
    actor.send({ type: 'ANSWERED', value: 1 });
    expect(actor.getSnapshot().output).toEqual({ outcome: 'givenUp' });
  });

  it('progress restarts the give-up time only when the request says so; each report is in the snapshot', () => {
    const resets = request({ wireId: 1, giveUpMs: 1_000, resetOnProgress: true });
    resets.clock.increment(900);
    resets.actor.send({ type: 'PROGRESS', progress: { progress: 1 } });
    expect(resets.actor.getSnapshot().context.progress).toEqual({ progress: 1 });
    resets.clock.increment(999);
    expect(resets.actor.getSnapshot().status).toBe('active');
    resets.clock.increment(1);
    expect(resets.actor.getSnapshot().output).toEqual({ outcome: 'givenUp' });

    const keeps = request({ wireId: 1, giveUpMs: 1_000 });
    keeps.clock.increment(900);
    keeps.actor.send({ type: 'PROGRESS', progress: { progress: 1 } });
    expect(keeps.actor.getSnapshot().context.progress).toEqual({ progress: 1 });
    keeps.clock.increment(100);
    expect(keeps.actor.getSnapshot().output).toEqual({ outcome: 'givenUp' });
  });

  it('without a deadline it waits as long as it takes', () => {
    const { actor, clock } = request({});
    clock.increment(24 * 3_600_000);
    expect(actor.getSnapshot().status).toBe('active');
    actor.send({ type: 'ANSWERED', value: 'status' });
    expect(actor.getSnapshot().output).toEqual({ outcome: 'answered', value: 'status' });
  });

  it('cancelled by its caller: the host is told; dropped when the line goes: it is not', () => {
    const cancelled = request({ wireId: 8, giveUpMs: 1_000 });
    cancelled.actor.send({ type: 'CANCEL' });
    expect(cancelled.actor.getSnapshot().output).toEqual({ outcome: 'cancelled' });
    expect(cancelled.cancelled).toEqual([8]);

    const dropped = request({ wireId: 9, giveUpMs: 1_000 });
    dropped.actor.send({ type: 'LINE_GONE' });
    expect(dropped.actor.getSnapshot().output).toEqual({ outcome: 'dropped' });
    expect(dropped.cancelled).toEqual([]);
  });
});
