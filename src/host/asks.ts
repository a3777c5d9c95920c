// A server's requests (elicitation, sampling) put to the sessions that may answer them. Several
// sessions asked: the first answer wins and the others are told the question is gone. Only a session
// that was asked can answer (an answer naming someone else's ask is ignored).
//
// Each question is a child actor of the host's asks (src/machines/host-asks.machine.ts, one
// src/machines/host-ask.machine.ts each: asking → answered | gone | withdrawn); this class puts the
// question on the lines and turns the child's outcome into the server's answer.

import { createActor } from 'xstate';
import type { AskOutcome, HostAskContext } from '../machines/host-ask.machine.ts';
import { hostAskMachine } from '../machines/host-ask.machine.ts';
import { hostAsksMachine } from '../machines/host-asks.machine.ts';
import { HostRefusal } from '../ports/mcp.ts';
import type { HostMessage, WireError } from './protocol.ts';
import { fromWire } from './wire-error.ts';

export interface AskTarget {
  readonly client: { readonly id: number; send(message: HostMessage): boolean };
  readonly a: number;
}

/** The server's request waiting for a question's outcome. */
type Reply = (outcome: AskOutcome, context: HostAskContext) => void;

const NOBODY = 'No attached Pi session can answer this request.';

export class Asks {
  private next = 1;
  private readonly open = createActor(
    hostAsksMachine.provide({
      actors: {
        ask: hostAskMachine.provide({
          actions: {
            tellGone: ({ context }) => {
              for (const target of context.asked as AskTarget[])
                target.client.send({ t: 'ask-cancelled', ask: context.ask });
            },
            settle: ({ context }, { outcome }) => (context.reply as Reply)(outcome, context),
          },
        }),
      },
    }),
  ).start();

  /** Puts `question` to `targets`; resolves with the first answer, rejects when none is left to answer. */
  ask(
    targets: AskTarget[],
    question: (ask: number, a: number) => HostMessage,
    signal: AbortSignal,
  ): Promise<unknown> {
    if (targets.length === 0) return Promise.reject(new HostRefusal(NOBODY));
    const ask = this.next++;
    const asked = targets.filter((target) => target.client.send(question(ask, target.a)));
    if (asked.length === 0) return Promise.reject(new HostRefusal(NOBODY));
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = () => this.open.send({ type: 'WITHDRAW', ask });
      const reply: Reply = (outcome, { answer }) => {
        signal.removeEventListener('abort', onAbort);
        if (outcome === 'withdrawn') reject(new HostRefusal('The server withdrew its request.'));
        else if (outcome === 'gone')
          reject(new HostRefusal('The Pi session asked went away before answering.'));
        else if (answer?.error) reject(fromWire(answer.error as WireError));
        else resolve(answer?.value);
      };
      this.open.send({ type: 'ASK', ask, asked, reply });
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
    });
  }

  /** A session's answer: taken only from a session that was asked. */
  answer(clientId: number, ask: number, answer: { value?: unknown; error?: WireError }): void {
    this.open.send({
      type: 'ANSWER',
      ask,
      client: clientId,
      answer: { value: answer.value, error: answer.error },
    });
  }

  /** A session's attachment went away (detached, disconnected): when nobody is left, the request is declined. */
  drop(clientId: number, a: number): void {
    this.open.send({ type: 'GONE', client: clientId, a });
  }
}
