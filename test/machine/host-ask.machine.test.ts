// A server's question put to sessions, as charts: each question is a child of the host's asks
// (asking → answered | gone | withdrawn), so the questions open are the children; the first answer
// from a session asked wins and the others are told it is gone; a session gone is struck off every
// question; a settled question is let go.

import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type AskOutcome, hostAskMachine } from '../../src/machines/host-ask.machine.ts';
import { askId, hostAsksMachine } from '../../src/machines/host-asks.machine.ts';

function asks() {
  const told: string[] = [];
  const settled: { ask: number; outcome: AskOutcome; value?: unknown }[] = [];
  const actor = createActor(
    hostAsksMachine.provide({
      actors: {
        ask: hostAskMachine.provide({
          actions: {
            tellGone: ({ context }) => {
              for (const s of context.asked) told.push(`${context.ask}: gone to ${s.client.id}/${s.a}`);
            },
            settle: ({ context }, { outcome }) =>
              void settled.push({ ask: context.ask, outcome, value: context.answer?.value }),
          },
        }),
      },
    }),
  ).start();
  const session = (id: number, a = 1) => ({ client: { id }, a });
  const put = (ask: number, ...asked: ReturnType<typeof session>[]) =>
    actor.send({ type: 'ASK', ask, asked, reply: undefined });
  const open = () => Object.keys(actor.getSnapshot().context.asks).sort();
  return { actor, told, settled, session, put, open };
}

describe('hostAsks / hostAsk', () => {
  it('the first answer from a session asked wins; the others are told it is gone; the question is let go', () => {
    const { actor, told, settled, session, put, open } = asks();
    put(1, session(1), session(2), session(3));
    expect(open()).toEqual([askId(1)]);
    expect(actor.getSnapshot().children[askId(1)]!.getSnapshot().value).toBe('asking');
    actor.send({ type: 'ANSWER', ask: 1, client: 2, answer: { value: 'yes' } });
    expect(settled).toEqual([{ ask: 1, outcome: 'answered', value: 'yes' }]);
    expect(told).toEqual(['1: gone to 1/1', '1: gone to 3/1']);
    expect(open()).toEqual([]);
    // A late answer finds no question.
    actor.send({ type: 'ANSWER', ask: 1, client: 1, answer: { value: 'no' } });
    expect(settled).toHaveLength(1);
  });

  it('an answer from a session that was not asked, or naming another question, is ignored', () => {
    const { actor, settled, session, put, open } = asks();
    put(1, session(1));
    put(2, session(2));
    actor.send({ type: 'ANSWER', ask: 1, client: 2, answer: { value: 'intruder' } });
    actor.send({ type: 'ANSWER', ask: 3, client: 1, answer: { value: 'nobody asked' } });
    expect(settled).toEqual([]);
    expect(open()).toEqual([askId(1), askId(2)]);
    actor.send({ type: 'ANSWER', ask: 1, client: 1, answer: { value: 'mine' } });
    expect(settled).toEqual([{ ask: 1, outcome: 'answered', value: 'mine' }]);
    expect(open()).toEqual([askId(2)]);
  });

  it('a session gone is struck off every question; one with nobody left asked is declined', () => {
    const { actor, told, settled, session, put, open } = asks();
    put(1, session(1), session(2, 1));
    put(2, session(2, 1));
    put(3, session(2, 2));
    actor.send({ type: 'GONE', client: 2, a: 1 });
    expect(settled).toEqual([{ ask: 2, outcome: 'gone', value: undefined }]);
    expect(open()).toEqual([askId(1), askId(3)]);
    expect(actor.getSnapshot().children[askId(1)]!.getSnapshot().context.asked).toEqual([session(1)]);
    actor.send({ type: 'GONE', client: 1, a: 1 });
    expect(settled.map((s) => [s.ask, s.outcome])).toEqual([
      [2, 'gone'],
      [1, 'gone'],
    ]);
    expect(told).toEqual([]);
  });

  it('the server withdrawing its request: everyone still asked is told, the question ends', () => {
    const { actor, told, settled, session, put, open } = asks();
    put(1, session(1), session(2));
    put(2, session(1));
    actor.send({ type: 'WITHDRAW', ask: 1 });
    expect(settled).toEqual([{ ask: 1, outcome: 'withdrawn', value: undefined }]);
    expect(told).toEqual(['1: gone to 1/1', '1: gone to 2/1']);
    expect(open()).toEqual([askId(2)]);
  });
});
