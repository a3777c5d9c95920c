// The link chart's greeting deadline on XState's SimulatedClock: a host that accepts and never greets
// is gone at exactly GREETING_DEADLINE_MS from the connect's start, whether or not it connected; a
// proven welcome before then opens the line and no deadline follows it.

import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { GREETING_DEADLINE_MS, hostLinkMachine } from '../../src/machines/host-link.machine.ts';

function link() {
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
    { clock },
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
    actor.send({ type: 'WELCOMED' });
    clock.increment(GREETING_DEADLINE_MS * 10);
    expect(actor.getSnapshot().value).toBe('open');
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
