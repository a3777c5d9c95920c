// The shared host's open questions (a server's elicitation or sampling request put to sessions): each
// is a child (./host-ask.machine.ts, id `ask:<ask>`), so the questions open are the children, and an
// answer, a session gone or a withdrawal goes to the child it concerns. A child that has ended (its
// outcome settled) is let go.

import { type ActorRefFrom, enqueueActions, setup } from 'xstate';
import { type AskAnswer, type AskedSession, hostAskMachine } from './host-ask.machine.ts';

type AskRef = ActorRefFrom<typeof hostAskMachine>;

export interface HostAsksContext {
  /** The questions open, by child id: the children (spawned and stopped here). */
  asks: Record<string, AskRef>;
}

export type HostAsksEvent =
  /** Put a question: `asked` are the sessions whose line took it; `reply` is opaque here. */
  | { type: 'ASK'; ask: number; asked: AskedSession[]; reply: unknown }
  | { type: 'ANSWER'; ask: number; client: number; answer: AskAnswer }
  /** An attachment ended: every question put to it strikes it off. */
  | { type: 'GONE'; client: number; a: number }
  | { type: 'WITHDRAW'; ask: number }
  | { type: `xstate.done.actor.ask:${number}` };

/** A question's child id. */
export function askId(ask: number): string {
  return `ask:${ask}`;
}

const DONE_PREFIX = 'xstate.done.actor.';

export const hostAsksMachine = setup({
  types: {} as { context: HostAsksContext; events: HostAsksEvent },
  actors: { ask: hostAskMachine },
  actions: {
    spawnAsk: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'ASK' || context.asks[askId(event.ask)]) return;
      const id = askId(event.ask);
      enqueue.assign({
        asks: ({ spawn }) => ({
          ...context.asks,
          [id]: spawn('ask', { id, input: { ask: event.ask, asked: event.asked, reply: event.reply } }),
        }),
      });
    }),
    /** An answer or a withdrawal: to its question alone. */
    toAsk: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === 'ANSWER' && context.asks[askId(event.ask)])
        enqueue.sendTo(askId(event.ask), { type: 'ANSWER', client: event.client, answer: event.answer });
      if (event.type === 'WITHDRAW' && context.asks[askId(event.ask)])
        enqueue.sendTo(askId(event.ask), { type: 'WITHDRAW' });
    }),
    toEveryAsk: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'GONE') return;
      for (const id of Object.keys(context.asks))
        enqueue.sendTo(id, { type: 'GONE', client: event.client, a: event.a });
    }),
    dropAsk: enqueueActions(({ context, event, enqueue }) => {
      const id = (event as { type: string }).type.slice(DONE_PREFIX.length);
      if (!context.asks[id]) return;
      enqueue.stopChild(id);
      enqueue.assign({ asks: Object.fromEntries(Object.entries(context.asks).filter(([k]) => k !== id)) });
    }),
  },
}).createMachine({
  id: 'hostAsks',
  context: { asks: {} },
  on: {
    ASK: { actions: 'spawnAsk' },
    ANSWER: { actions: 'toAsk' },
    WITHDRAW: { actions: 'toAsk' },
    GONE: { actions: 'toEveryAsk' },
    'xstate.done.actor.*': { actions: 'dropAsk' },
  },
});
