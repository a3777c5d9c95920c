// A session's line to the shared host, from the connect to its end: connecting → greeting → open →
// gone. The host has `greetingDeadline` from the connect's start to a proven welcome; a host that
// accepts and stays silent (stopped, hung) is gone when it passes. A line the host was born with (the
// pipe of the host the session started, src/adapters/host/line-ahead.ts) is open from the start, its
// hello already on its way: requests are put to it at once and wait in the pipe, and its welcome must
// still come within `greetingDeadline`. The two states that wait for a welcome are tagged `welcoming`.
// While open, every request put to the host (a call, a restart, a status) is a spawned `request` child
// (./host-request.machine.ts) with its own give-up delay: the requests in flight are the children, and
// the line's end drops them all. Pure: the socket, the hello and what a session does when the line
// opens, fails or is lost are actions the client provides (src/adapters/host/host-client.ts).

import { assign, type DoneActorEvent, enqueueActions, setup, spawnChild, stopChild } from 'xstate';
import { type HostRequestEvent, type HostRequestInput, hostRequestMachine } from './host-request.machine.ts';

/** From connecting to a proven welcome: a host that has not greeted by then is treated as gone. */
export const GREETING_DEADLINE_MS = 4_000;

/**
 * Why a line never opened: `absent` (nothing listens), `silent` (no welcome in time), `foreign` (no
 * proof of the key, or an answer this build does not know), `other-build`, `gone` (closed first).
 */
export type LinkFailure = 'absent' | 'silent' | 'foreign' | 'other-build' | 'gone';

export type HostLinkEvent =
  | { type: 'CONNECTED' }
  /** The welcome was this build's host proving the key. */
  | { type: 'WELCOMED' }
  | { type: 'FAILED'; why: LinkFailure; detail: string }
  | { type: 'CLOSED' }
  /** A request put to the host: spawned as the child `key` (the client then sends it on the wire). */
  | { type: 'REQUEST'; key: string; input: HostRequestInput }
  /** Something for the request `key` (its answer, progress, cancel); nothing when it has ended. */
  | { type: 'TO_REQUEST'; key: string; event: HostRequestEvent }
  /** A request ended (XState's own event from a child that reached a final state). */
  | DoneActorEvent<unknown, string>;

type RequestEvent = Extract<HostLinkEvent, { type: 'REQUEST' }>;

export interface HostLinkInput {
  /** The pipe of the host this session started: open at once, its welcome still to come. */
  born?: boolean;
}

export interface HostLinkContext {
  /** Why the line never opened (or, born, was never welcomed), once it has not. */
  failure?: { why: LinkFailure; detail: string };
  born?: boolean;
}

export const hostLinkMachine = setup({
  types: {} as { context: HostLinkContext; events: HostLinkEvent; input: HostLinkInput | undefined },
  actors: { request: hostRequestMachine },
  actions: {
    /** No proven welcome within the greeting deadline. */
    noteSilence: assign({
      failure: () => ({
        why: 'silent' as const,
        detail: `did not answer within ${GREETING_DEADLINE_MS / 1000} s`,
      }),
    }),
    /** Why the line failed, as its FAILED said. */
    noteFailure: assign({
      failure: ({ event }) =>
        event.type === 'FAILED' ? { why: event.why, detail: event.detail } : undefined,
    }),
    /** Hands an event to a request still in flight (one that ended is gone from the children). */
    toRequest: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'TO_REQUEST') return;
      const request = self.getSnapshot().children[event.key];
      if (request) enqueue.sendTo(request, event.event);
    }),
    forgetRequest: stopChild(({ event }) => (event as DoneActorEvent).actorId),
    /** The line closed: every request in flight is dropped (no answer can come). */
    dropRequests: enqueueActions(({ enqueue, self }) => {
      for (const request of Object.values(self.getSnapshot().children))
        if (request) enqueue.sendTo(request, { type: 'LINE_GONE' });
    }),
    /** Send the hello (the socket is connected). */
    sendHello: () => {},
    /** The welcome proved the host: send the session's proof, hand the line over. */
    opened: () => {},
    /** The line never opened: `context.failure` says why. */
    failed: () => {},
    /** An open line closed: every call and attachment on it hears so. */
    lost: () => {},
  },
  guards: { born: ({ context }) => context.born === true },
  delays: { greetingDeadline: GREETING_DEADLINE_MS },
}).createMachine({
  id: 'hostLink',
  initial: 'starting',
  context: ({ input }) => (input?.born ? { born: true } : {}),
  states: {
    starting: {
      always: [{ guard: 'born', target: 'open.born' }, { target: 'linking' }],
    },
    linking: {
      initial: 'connecting',
      after: {
        greetingDeadline: {
          target: 'gone',
          actions: ['noteSilence', 'failed'],
        },
      },
      on: {
        FAILED: {
          target: 'gone',
          actions: ['noteFailure', 'failed'],
        },
        CLOSED: {
          target: 'gone',
          actions: [assign({ failure: { why: 'gone', detail: 'closed the connection' } }), 'failed'],
        },
      },
      states: {
        connecting: { on: { CONNECTED: 'greeting' } },
        greeting: { entry: 'sendHello', tags: ['welcoming'], on: { WELCOMED: '#hostLink.open' } },
      },
    },
    open: {
      entry: 'opened',
      initial: 'welcomed',
      states: {
        welcomed: {},
        // Its requests wait in the pipe; a host that never welcomes (or not as this build's) is gone.
        born: {
          tags: ['welcoming'],
          after: {
            greetingDeadline: {
              target: '#hostLink.gone',
              actions: ['noteSilence', 'dropRequests', 'lost', 'failed'],
            },
          },
          on: {
            WELCOMED: 'welcomed',
            FAILED: {
              target: '#hostLink.gone',
              actions: ['noteFailure', 'dropRequests', 'lost', 'failed'],
            },
          },
        },
      },
      on: {
        REQUEST: {
          actions: spawnChild('request', {
            id: ({ event }) => (event as RequestEvent).key,
            input: ({ event }) => (event as RequestEvent).input,
          }),
        },
        TO_REQUEST: { actions: 'toRequest' },
        // A request that ended leaves the children: those left are the ones in flight.
        'xstate.done.actor.*': { actions: 'forgetRequest' },
        CLOSED: { target: 'gone', actions: ['dropRequests', 'lost'] },
      },
    },
    gone: { type: 'final' },
  },
});
