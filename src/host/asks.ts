// A server's requests (elicitation, sampling) put to the sessions that may answer them. Several
// sessions asked: the first answer wins and the others are told the question is gone. Only a session
// that was asked can answer (an answer naming someone else's ask is ignored).

import { HostRefusal } from '../ports/mcp.ts';
import type { HostMessage, WireError } from './protocol.ts';
import { fromWire } from './wire-error.ts';

export interface AskTarget {
  readonly client: { readonly id: number; send(message: HostMessage): boolean };
  readonly a: number;
}

interface OpenAsk {
  targets: Set<AskTarget>;
  settle(answer: { value?: unknown; error?: WireError }): void;
  fail(error: Error): void;
}

export class Asks {
  private next = 1;
  private readonly open = new Map<number, OpenAsk>();

  /** Puts `question` to `targets`; resolves with the first answer, rejects when none is left to answer. */
  ask(
    targets: AskTarget[],
    question: (ask: number, a: number) => HostMessage,
    signal: AbortSignal,
  ): Promise<unknown> {
    if (targets.length === 0)
      return Promise.reject(new HostRefusal('No attached Pi session can answer this request.'));
    const ask = this.next++;
    return new Promise<unknown>((resolve, reject) => {
      const finish = () => {
        this.open.delete(ask);
        signal.removeEventListener('abort', onAbort);
        for (const target of entry.targets) target.client.send({ t: 'ask-cancelled', ask });
      };
      const entry: OpenAsk = {
        targets: new Set(),
        settle: ({ value, error }) => {
          finish();
          if (error) reject(fromWire(error));
          else resolve(value);
        },
        fail: (error) => {
          finish();
          reject(error);
        },
      };
      const onAbort = () => entry.fail(new HostRefusal('The server withdrew its request.'));
      signal.addEventListener('abort', onAbort, { once: true });
      this.open.set(ask, entry);
      for (const target of targets)
        if (target.client.send(question(ask, target.a))) entry.targets.add(target);
      if (entry.targets.size === 0)
        entry.fail(new HostRefusal('No attached Pi session can answer this request.'));
    });
  }

  /** A session's answer: taken only from a session that was asked. */
  answer(clientId: number, ask: number, answer: { value?: unknown; error?: WireError }): void {
    const entry = this.open.get(ask);
    if (!entry) return;
    const asked = [...entry.targets].find((t) => t.client.id === clientId);
    if (!asked) return;
    entry.targets.delete(asked);
    entry.settle(answer);
  }

  /** A target went away (detached, disconnected): when nobody is left, the request is declined. */
  drop(gone: (target: AskTarget) => boolean): void {
    for (const entry of [...this.open.values()]) {
      for (const target of [...entry.targets]) if (gone(target)) entry.targets.delete(target);
      if (entry.targets.size === 0)
        entry.fail(new HostRefusal('The Pi session asked went away before answering.'));
    }
  }
}
