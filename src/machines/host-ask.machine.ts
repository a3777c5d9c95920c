// One question a server put to sessions through the shared host (an elicitation, a sampling request):
// asking → answered | gone | withdrawn.
//
// - asking: put to the sessions in `asked` (those whose line took it). The first answer from one of
//   them wins; an answer from anyone else is ignored. A session asked that goes away (detached, its
//   line closed) is struck off.
// - answered: the others still asked are told it is gone (`tellGone`), the server gets the answer.
// - gone: nobody asked is left to answer: the server's request is declined.
// - withdrawn: the server withdrew its request: everyone still asked is told it is gone.
//
// It is a child of the host's asks (./host-asks.machine.ts, id `ask:<ask>`). Pure: the host provides
// `tellGone` and `settle` (src/host/asks.ts), which hands the outcome to the server's request.

import { assign, setup } from 'xstate';

/** A session's attachment a question was put to (the host's line to it is opaque here). */
export interface AskedSession {
  readonly client: { readonly id: number };
  readonly a: number;
}

/** A session's answer, as the wire carries it (`error`: the session could not answer). */
export interface AskAnswer {
  value?: unknown;
  error?: unknown;
}

export interface HostAskInput {
  /** The host's id of the question (what answers name). */
  ask: number;
  asked: AskedSession[];
  /** Where the outcome goes (the server's request waiting): opaque to the chart. */
  reply: unknown;
}

export interface HostAskContext extends HostAskInput {
  answer?: AskAnswer;
}

export type HostAskEvent =
  /** A session's answer (`client`: the id of the line it came on). */
  | { type: 'ANSWER'; client: number; answer: AskAnswer }
  /** A session's attachment ended (detached, or its line closed). */
  | { type: 'GONE'; client: number; a: number }
  /** The server withdrew its request (its signal aborted). */
  | { type: 'WITHDRAW' };

export type AskOutcome = 'answered' | 'gone' | 'withdrawn';

export const hostAskMachine = setup({
  types: {} as { input: HostAskInput; context: HostAskContext; events: HostAskEvent },
  actions: {
    /** Tell every session still asked that the question is gone. */
    tellGone: () => {},
    /** Hand the outcome (and the answer) to the server's request. */
    settle: (_, _params: { outcome: AskOutcome }) => {},
    /** Keep the winning answer; its session is no longer one to tell. */
    keepAnswer: assign(({ context, event }) => {
      if (event.type !== 'ANSWER') return {};
      const at = context.asked.findIndex((s) => s.client.id === event.client);
      return { answer: event.answer, asked: context.asked.filter((_, i) => i !== at) };
    }),
    strikeOff: assign({
      asked: ({ context, event }) =>
        event.type === 'GONE'
          ? context.asked.filter((s) => !(s.client.id === event.client && s.a === event.a))
          : context.asked,
    }),
  },
  guards: {
    fromAsked: ({ context, event }) =>
      event.type === 'ANSWER' && context.asked.some((s) => s.client.id === event.client),
    nobodyLeft: ({ context }) => context.asked.length === 0,
  },
}).createMachine({
  id: 'hostAsk',
  initial: 'asking',
  context: ({ input }) => ({ ...input }),
  states: {
    asking: {
      always: { guard: 'nobodyLeft', target: 'gone' },
      on: {
        ANSWER: { guard: 'fromAsked', target: 'answered', actions: 'keepAnswer' },
        GONE: { actions: 'strikeOff' },
        WITHDRAW: 'withdrawn',
      },
    },
    answered: {
      type: 'final',
      entry: ['tellGone', { type: 'settle', params: { outcome: 'answered' } }],
    },
    gone: { type: 'final', entry: { type: 'settle', params: { outcome: 'gone' } } },
    withdrawn: {
      type: 'final',
      entry: ['tellGone', { type: 'settle', params: { outcome: 'withdrawn' } }],
    },
  },
});
