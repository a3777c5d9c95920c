// One request a session put to the shared host over its line (a call, a restart, a status), from its
// sending to its end: sent → answered | failed | givenUp | dropped | cancelled. Spawned by the link
// (src/machines/host-link.machine.ts) while the line is open, so the requests in flight are the link's
// children and each give-up timer belongs to its request. Pure: telling the host to stop a request
// (`sendCancel`) is an action the client provides (src/adapters/host/host-client.ts); whoever waits
// for the answer reads the final state's output.

import { assign, setup } from 'xstate';

export interface HostRequestInput {
  /** The request's id on the wire, when it has one (a call's): what a cancel names. */
  wireId?: number;
  /** The attachment it runs on (a call's): its detach ends it. */
  attachment?: number;
  /** How long the request waits for its answer (a call: its own timeout + grace); none: no deadline. */
  giveUpMs?: number;
  /** Progress restarts the give-up time (a call with `resetTimeoutOnProgress`). */
  resetOnProgress?: boolean;
}

export interface HostRequestContext extends HostRequestInput {
  /** The latest progress reported (each report is a new object: whoever watches the snapshot relays it). */
  progress?: unknown;
  /** How it ended, once it has. */
  outcome?: HostRequestOutcome;
}

export type HostRequestEvent =
  | { type: 'ANSWERED'; value: unknown }
  | { type: 'FAILED'; error: unknown }
  | { type: 'PROGRESS'; progress: unknown }
  /** The line to the host closed: no answer can come any more. */
  | { type: 'LINE_GONE' }
  /** The caller let it go (its signal aborted): the host is told to stop it. */
  | { type: 'CANCEL' };

export type HostRequestOutcome =
  | { outcome: 'answered'; value: unknown }
  | { outcome: 'failed'; error: unknown }
  | { outcome: 'givenUp' }
  | { outcome: 'dropped' }
  | { outcome: 'cancelled' };

export const hostRequestMachine = setup({
  types: {} as {
    input: HostRequestInput;
    context: HostRequestContext;
    events: HostRequestEvent;
    output: HostRequestOutcome;
  },
  actions: {
    /** Tell the host to stop this request (it was given up or cancelled). */
    sendCancel: () => {},
  },
  guards: {
    hasDeadline: ({ context }) => context.giveUpMs !== undefined,
    resetsOnProgress: ({ context }) => context.resetOnProgress === true,
  },
  delays: {
    /** The request's own give-up time (a call: its timeout + CALL_GRACE_MS). */
    giveUp: ({ context }) => context.giveUpMs ?? 0,
  },
}).createMachine({
  id: 'hostRequest',
  initial: 'sent',
  context: ({ input }) => ({ ...input }),
  states: {
    sent: {
      initial: 'waiting',
      states: {
        waiting: {
          always: { guard: 'hasDeadline', target: 'timed' },
          on: { PROGRESS: { actions: assign({ progress: ({ event }) => event.progress }) } },
        },
        timed: {
          after: { giveUp: '#hostRequest.givenUp' },
          on: {
            PROGRESS: [
              {
                guard: 'resetsOnProgress',
                target: 'timed',
                reenter: true,
                actions: assign({ progress: ({ event }) => event.progress }),
              },
              { actions: assign({ progress: ({ event }) => event.progress }) },
            ],
          },
        },
      },
      on: {
        ANSWERED: {
          target: 'answered',
          actions: assign({ outcome: ({ event }) => ({ outcome: 'answered' as const, value: event.value }) }),
        },
        FAILED: {
          target: 'failed',
          actions: assign({ outcome: ({ event }) => ({ outcome: 'failed' as const, error: event.error }) }),
        },
        LINE_GONE: 'dropped',
        CANCEL: 'cancelled',
      },
    },
    answered: { type: 'final' },
    failed: { type: 'final' },
    givenUp: { type: 'final', entry: [assign({ outcome: { outcome: 'givenUp' } }), 'sendCancel'] },
    dropped: { type: 'final', entry: assign({ outcome: { outcome: 'dropped' } }) },
    cancelled: { type: 'final', entry: [assign({ outcome: { outcome: 'cancelled' } }), 'sendCancel'] },
  },
  output: ({ context }) => context.outcome ?? { outcome: 'dropped' },
});
