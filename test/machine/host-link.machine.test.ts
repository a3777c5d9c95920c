// The link chart's greeting deadline on XState's SimulatedClock: a host that accepts and never greets
// is gone at exactly GREETING_DEADLINE_MS from the connect's start, whether or not it connected; a
// proven welcome before then opens the line and no deadline follows it. While open, each request is a
// child with its own give-up delay; the line's close drops them all. A birth line is open at once and
// takes requests before the host's welcome, which must still come within the deadline.

import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { GREETING_DEADLINE_MS, hostLinkMachine } from '../../src/machines/host-link.machine.ts';
import { type HostRequestInput, hostRequestMachine } from '../../src/machines/host-request.machine.ts';

function link(born = false) {
  const clock = new SimulatedClock();
  const seen: string[] = [];
  const actor = createActor(
    hostLinkMachine.provide({
      actions: {
        sendHello: () => void seen.push('hello'),
        opened: () => void seen.push('opened'),
        failed: ({ context }) => void seen.push(`failed ${context.failure?.why}`),
        lost: () => void seen.push('lost'),
      },
    }),
    { clock, input: { born } },
  ).start();
  return { actor, clock, seen };
}

describe('hostLink', () => {
  it('connected and silent: gone (silent) at exactly the greeting deadline', () => {
    const { actor, clock, seen } = link();
    actor.send({ type: 'CONNECTED' });
    expect(seen).toEqual(['hello']);
    clock.increment(GREETING_DEADLINE_MS - 1);
    expect(actor.getSnapshot().value).toEqual({ linking: 'greeting' });
    clock.increment(1);
    expect(actor.getSnapshot().value).toBe('gone');
    expect(actor.getSnapshot().context.failure?.why).toBe('silent');
    expect(seen).toEqual(['hello', 'failed silent']);
  });

  it('the deadline counts from the connect, not from the hello', () => {
    const { actor, clock } = link();
    clock.increment(GREETING_DEADLINE_MS - 10);
    actor.send({ type: 'CONNECTED' });
    clock.increment(10);
    expect(actor.getSnapshot().value).toBe('gone');
  });

  it('a proven welcome opens the line; the deadline no longer applies; its close is a loss', () => {
    const { actor, clock, seen } = link();
    actor.send({ type: 'CONNECTED' });
    expect(actor.getSnapshot().hasTag('welcoming')).toBe(true);
    actor.send({ type: 'WELCOMED' });
    expect(actor.getSnapshot().hasTag('welcoming')).toBe(false);
    clock.increment(GREETING_DEADLINE_MS * 10);
    expect(actor.getSnapshot().value).toEqual({ open: 'welcomed' });
    actor.send({ type: 'CLOSED' });
    expect(actor.getSnapshot().value).toBe('gone');
    expect(seen).toEqual(['hello', 'opened', 'lost']);
  });

  it('a welcome before the connect is not possible: WELCOMED while connecting changes nothing', () => {
    const { actor } = link();
    actor.send({ type: 'WELCOMED' });
    expect(actor.getSnapshot().value).toEqual({ linking: 'connecting' });
  });

  it('a failure or a close while linking ends it at once, saying why', () => {
    const refused = link();
    refused.actor.send({ type: 'CONNECTED' });
    refused.actor.send({ type: 'FAILED', why: 'foreign', detail: 'no proof' });
    expect(refused.actor.getSnapshot().context.failure).toEqual({ why: 'foreign', detail: 'no proof' });
    expect(refused.seen).toEqual(['hello', 'failed foreign']);

    const closed = link();
    closed.actor.send({ type: 'CLOSED' });
    expect(closed.actor.getSnapshot().context.failure?.why).toBe('gone');
    expect(closed.seen).toEqual(['failed gone']);
  });
});

describe('hostLink: requests are its children', () => {
  function openLink() {
    const clock = new SimulatedClock();
    const cancelled: Array<number | undefined> = [];
    const link = createActor(
      hostLinkMachine.provide({
        actors: {
          request: hostRequestMachine.provide({
            actions: { sendCancel: ({ context }) => void cancelled.push(context.wireId) },
          }),
        },
      }),
      { clock, input: {} },
    ).start();
    link.send({ type: 'CONNECTED' });
    link.send({ type: 'WELCOMED' });
    const outputs = new Map<string, unknown>();
    const put = (key: string, input: HostRequestInput) => {
      link.send({ type: 'REQUEST', key, input });
      const child = link.getSnapshot().children[key]!;
      child.subscribe({ complete: () => void outputs.set(key, child.getSnapshot().output) });
    };
    return { link, clock, cancelled, outputs, put };
  }

  it('in flight is the number of children; an answered or given-up request leaves them', () => {
    const { link, clock, outputs, put } = openLink();
    put('call:1', { wireId: 1, giveUpMs: 3_000 });
    put('call:2', { wireId: 2, giveUpMs: 5_000 });
    expect(Object.keys(link.getSnapshot().children)).toEqual(['call:1', 'call:2']);
    link.send({ type: 'TO_REQUEST', key: 'call:2', event: { type: 'ANSWERED', value: 'two' } });
    expect(Object.keys(link.getSnapshot().children)).toEqual(['call:1']);
    clock.increment(3_000);
    expect(Object.keys(link.getSnapshot().children)).toEqual([]);
    expect(outputs).toEqual(
      new Map<string, unknown>([
        ['call:2', { outcome: 'answered', value: 'two' }],
        ['call:1', { outcome: 'givenUp' }],
      ]),
    );
    // Something for a request that has ended goes nowhere.
    link.send({ type: 'TO_REQUEST', key: 'call:1', event: { type: 'ANSWERED', value: 'late' } });
    expect(outputs.get('call:1')).toEqual({ outcome: 'givenUp' });
  });

  it('the line closing drops every request in flight (none is cancelled on a line that is gone)', () => {
    const { link, cancelled, outputs, put } = openLink();
    put('call:1', { wireId: 1, giveUpMs: 3_000 });
    put('status:2', {});
    link.send({ type: 'CLOSED' });
    expect(link.getSnapshot().value).toBe('gone');
    expect(outputs.get('call:1')).toEqual({ outcome: 'dropped' });
    expect(outputs.get('status:2')).toEqual({ outcome: 'dropped' });
    expect(cancelled).toEqual([]);
  });

  it('a cancel goes to its own request only', () => {
    const { link, cancelled, outputs, put } = openLink();
    put('call:1', { wireId: 1, giveUpMs: 3_000 });
    put('call:2', { wireId: 2, giveUpMs: 3_000 });
    link.send({ type: 'TO_REQUEST', key: 'call:1', event: { type: 'CANCEL' } });
    expect(outputs.get('call:1')).toEqual({ outcome: 'cancelled' });
    expect(cancelled).toEqual([1]);
    expect(Object.keys(link.getSnapshot().children)).toEqual(['call:2']);
  });

  it('no request is taken before the line is open', () => {
    const link = createActor(hostLinkMachine, { input: {} }).start();
    link.send({ type: 'REQUEST', key: 'call:1', input: {} });
    expect(link.getSnapshot().children).toEqual({});
    link.stop();
  });

  describe('a birth line', () => {
    const requestOf = (actor: ReturnType<typeof link>['actor'], key: string) => {
      actor.send({ type: 'REQUEST', key, input: {} });
      return actor.getSnapshot().children[key];
    };

    it('is open at once, without a hello, and takes requests before the welcome', () => {
      const { actor, clock, seen } = link(true);
      expect(actor.getSnapshot().value).toEqual({ open: 'born' });
      expect(actor.getSnapshot().hasTag('welcoming')).toBe(true);
      expect(requestOf(actor, 'attach:1')).toBeDefined();
      actor.send({ type: 'WELCOMED' });
      expect(actor.getSnapshot().value).toEqual({ open: 'welcomed' });
      expect(actor.getSnapshot().hasTag('welcoming')).toBe(false);
      clock.increment(GREETING_DEADLINE_MS * 10);
      expect(actor.getSnapshot().value).toEqual({ open: 'welcomed' });
      expect(seen).toEqual(['opened']);
    });

    it('never welcomed: gone (silent) at exactly the greeting deadline, its requests dropped', () => {
      const { actor, clock, seen } = link(true);
      const attach = requestOf(actor, 'attach:1')!;
      clock.increment(GREETING_DEADLINE_MS - 1);
      expect(actor.getSnapshot().value).toEqual({ open: 'born' });
      clock.increment(1);
      expect(actor.getSnapshot().value).toBe('gone');
      expect(actor.getSnapshot().context.failure?.why).toBe('silent');
      expect(attach.getSnapshot().output).toEqual({ outcome: 'dropped' });
      expect(seen).toEqual(['opened', 'lost', 'failed silent']);
    });

    it("a welcome that is not this build's host: gone, its requests dropped", () => {
      const { actor, seen } = link(true);
      const attach = requestOf(actor, 'attach:1')!;
      actor.send({ type: 'FAILED', why: 'other-build', detail: 'is of another build' });
      expect(actor.getSnapshot().value).toBe('gone');
      expect(attach.getSnapshot().output).toEqual({ outcome: 'dropped' });
      expect(seen).toEqual(['opened', 'lost', 'failed other-build']);
    });
  });
});
