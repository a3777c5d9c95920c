// A server's request put to several sessions: the first answer wins, the others hear it is gone; only
// a session that was asked can answer; with nobody left to answer it is declined.

import { describe, expect, it } from 'vitest';
import { Asks, type AskTarget } from '../../../src/host/asks.ts';
import type { HostMessage } from '../../../src/host/protocol.ts';
import { HostRefusal } from '../../../src/ports/mcp.ts';

function target(id: number, a = 1) {
  const sent: HostMessage[] = [];
  const t: AskTarget & { sent: HostMessage[] } = {
    client: {
      id,
      send: (m) => {
        sent.push(m);
        return true;
      },
    },
    a,
    sent,
  };
  return t;
}

const question = (ask: number, a: number): HostMessage => ({
  t: 'ask',
  ask,
  a,
  kind: 'elicit',
  request: { mode: 'form', message: 'name?', requestedSchema: {} },
});

describe('Asks', () => {
  it('the first answer wins; the other session is told the question is gone', async () => {
    const asks = new Asks();
    const one = target(1);
    const two = target(2);
    const answer = asks.ask([one, two], question, new AbortController().signal);
    const ask = (one.sent[0] as { ask: number }).ask;
    asks.answer(2, ask, { value: { action: 'decline' } });
    asks.answer(1, ask, { value: { action: 'accept', content: {} } });
    await expect(answer).resolves.toEqual({ action: 'decline' });
    expect(one.sent).toContainEqual({ t: 'ask-cancelled', ask });
    expect(two.sent).not.toContainEqual({ t: 'ask-cancelled', ask });
  });

  it('an answer from a session that was not asked is ignored', async () => {
    const asks = new Asks();
    const asked = target(1);
    const answer = asks.ask([asked], question, new AbortController().signal);
    const ask = (asked.sent[0] as { ask: number }).ask;
    asks.answer(99, ask, { value: { action: 'accept', content: { name: 'intruder' } } });
    asks.answer(1, ask, { value: { action: 'cancel' } });
    await expect(answer).resolves.toEqual({ action: 'cancel' });
  });

  it('declined when nobody can answer, or when the sessions asked went away', async () => {
    const asks = new Asks();
    await expect(asks.ask([], question, new AbortController().signal)).rejects.toBeInstanceOf(HostRefusal);
    const leaving = target(1);
    const answer = asks.ask([leaving], question, new AbortController().signal);
    asks.drop(leaving.client.id, leaving.a);
    await expect(answer).rejects.toBeInstanceOf(HostRefusal);
  });

  it('the server withdrawing its request cancels the question everywhere', async () => {
    const asks = new Asks();
    const one = target(1);
    const withdrawn = new AbortController();
    const answer = asks.ask([one], question, withdrawn.signal);
    withdrawn.abort();
    await expect(answer).rejects.toBeInstanceOf(HostRefusal);
    expect(one.sent.at(-1)).toMatchObject({ t: 'ask-cancelled' });
  });

  it('a request the server withdrew before it was put is declined at once, and the question withdrawn', async () => {
    const asks = new Asks();
    const one = target(1);
    const withdrawn = new AbortController();
    withdrawn.abort();
    await expect(asks.ask([one], question, withdrawn.signal)).rejects.toEqual(
      new HostRefusal('The server withdrew its request.'),
    );
    expect(one.sent.at(-1)).toMatchObject({ t: 'ask-cancelled' });
  });

  it('an error answer reaches the server as that error', async () => {
    const asks = new Asks();
    const one = target(1);
    const answer = asks.ask([one], question, new AbortController().signal);
    asks.answer(1, (one.sent[0] as { ask: number }).ask, {
      error: { name: 'HostRefusal', message: 'No UI' },
    });
    await expect(answer).rejects.toEqual(new HostRefusal('No UI'));
  });
});
