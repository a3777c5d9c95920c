// Reaching this build's shared host, starting it when none answers: opening → starting → opening → up
// | failed. `opening` connects and greets (./host-link.machine.ts); when nothing listens, `starting`
// starts the host process (or follows the one this process started moments ago) and waits for it to
// say it listens, or to exit (the loser of a race exits once the winner listens), then opens again
// at once: nothing polls. The host has `startDeadline` from the first try; a host that exited and
// still nobody answers, or any other failure to open, ends it at once.
// Pure: opening the line and the host process are actors the adapter provides
// (src/adapters/host/start-host.ts).

import { assign, fromCallback, fromPromise, setup } from 'xstate';

/** From the first try to a host answering, when this session has to start one. */
export const HOST_START_DEADLINE_MS = 15_000;

/** What a try to open the line found: the line, or nobody listening (any other failure rejects). */
export type OpenOutcome<Line> = { line: Line } | { absent: true };

export type HostStartEvent =
  /** The host process said it listens. */
  | { type: 'LISTENING' }
  /** The host process exited (code 1 for a signal or a failed spawn). */
  | { type: 'EXITED'; code: number };

export type HostStartFailure =
  | { why: 'exited'; code: number }
  | { why: 'deadline' }
  /** Opening failed otherwise (a host that is silent, foreign, of another build; a refused place). */
  | { why: 'error'; error: unknown };

export interface HostStartContext<Line = unknown> {
  line?: Line;
  /** The host process it started or followed exited with this code. */
  exitCode?: number;
  failure?: HostStartFailure;
}

export const hostStartMachine = setup({
  types: {} as { context: HostStartContext; events: HostStartEvent },
  actors: {
    /** Connect and greet: the line, `{ absent }` when nothing listens, a rejection for any other failure. */
    open: fromPromise<OpenOutcome<unknown>>(async () => {
      throw new Error('open not provided');
    }),
    /** Starts the host process (or follows the one being started) and sends LISTENING or EXITED. */
    hostProcess: fromCallback<HostStartEvent>(() => {
      throw new Error('hostProcess not provided');
    }),
  },
  guards: {
    opened: ({ event }) => 'line' in (event as unknown as { output: OpenOutcome<unknown> }).output,
    exitedBefore: ({ context }) => context.exitCode !== undefined,
  },
  delays: { startDeadline: HOST_START_DEADLINE_MS },
}).createMachine({
  id: 'hostStart',
  initial: 'reaching',
  context: {},
  states: {
    reaching: {
      initial: 'opening',
      after: {
        startDeadline: { target: 'failed', actions: assign({ failure: { why: 'deadline' as const } }) },
      },
      states: {
        opening: {
          invoke: {
            id: 'open',
            src: 'open',
            onDone: [
              {
                guard: 'opened',
                target: '#hostStart.up',
                actions: assign({ line: ({ event }) => (event.output as { line: unknown }).line }),
              },
              // It exited before this try, and this try found nobody either: it could not start.
              {
                guard: 'exitedBefore',
                target: '#hostStart.failed',
                actions: assign({
                  failure: ({ context }) => ({ why: 'exited' as const, code: context.exitCode! }),
                }),
              },
              { target: 'starting' },
            ],
            onError: {
              target: '#hostStart.failed',
              actions: assign({ failure: ({ event }) => ({ why: 'error' as const, error: event.error }) }),
            },
          },
        },
        starting: {
          invoke: { id: 'hostProcess', src: 'hostProcess' },
          on: {
            LISTENING: 'opening',
            EXITED: { target: 'opening', actions: assign({ exitCode: ({ event }) => event.code }) },
          },
        },
      },
    },
    up: { type: 'final' },
    failed: { type: 'final' },
  },
});
