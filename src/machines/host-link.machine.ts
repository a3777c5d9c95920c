// A session's line to the shared host, from the connect to its end: connecting → greeting → open →
// gone. The host has `greetingDeadline` from the connect's start to a proven welcome; a host that
// accepts and stays silent (stopped, hung) is gone when it passes. Pure: the socket, the hello and
// what a session does when the line opens, fails or is lost are actions the client provides
// (src/adapters/host/host-client.ts).

import { assign, setup } from 'xstate';

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
  | { type: 'CLOSED' };

export interface HostLinkContext {
  /** Why the line never opened, once it has not. */
  failure?: { why: LinkFailure; detail: string };
}

export const hostLinkMachine = setup({
  types: {} as { context: HostLinkContext; events: HostLinkEvent },
  actions: {
    /** Send the hello (the socket is connected). */
    sendHello: () => {},
    /** The welcome proved the host: send the session's proof, hand the line over. */
    opened: () => {},
    /** The line never opened: `context.failure` says why. */
    failed: () => {},
    /** An open line closed: every call and attachment on it hears so. */
    lost: () => {},
  },
  delays: { greetingDeadline: GREETING_DEADLINE_MS },
}).createMachine({
  id: 'hostLink',
  initial: 'linking',
  context: {},
  states: {
    linking: {
      initial: 'connecting',
      after: {
        greetingDeadline: {
          target: 'gone',
          actions: [
            assign({
              failure: () => ({
                why: 'silent' as const,
                detail: `did not answer within ${GREETING_DEADLINE_MS / 1000} s`,
              }),
            }),
            'failed',
          ],
        },
      },
      on: {
        FAILED: {
          target: 'gone',
          actions: [assign({ failure: ({ event }) => ({ why: event.why, detail: event.detail }) }), 'failed'],
        },
        CLOSED: {
          target: 'gone',
          actions: [assign({ failure: { why: 'gone', detail: 'closed the connection' } }), 'failed'],
        },
      },
      states: {
        connecting: { on: { CONNECTED: 'greeting' } },
        greeting: { entry: 'sendHello', on: { WELCOMED: '#hostLink.open' } },
      },
    },
    open: {
      entry: 'opened',
      on: { CLOSED: { target: 'gone', actions: 'lost' } },
    },
    gone: { type: 'final' },
  },
});
