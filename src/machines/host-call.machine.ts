// One session's call on a shared host's instance, from its arrival to its answer: waiting (for the
// instance's live connection; a call racing the connection's end waits for the close) → running (on
// the server: a restart cuts it) → done. It is a child of its attachment (./host-attachment.machine.ts),
// so the attachment's calls in flight are its children, and stopping it (a cancel, a detach, the
// session gone) aborts what it is doing. Pure: the host provides both steps (src/host/host-calls.ts),
// and each step answers the session itself.

import { assign, fromPromise, setup } from 'xstate';

export interface HostCallInput {
  /** The session's own call id (unique among its client's calls). */
  id: number;
  /** A health ping: not a call for routing, draining or a restart's count. */
  ping: boolean;
  /** What the host needs to run it (the message, the client, the instance): opaque to the chart. */
  work: unknown;
}

export interface HostCallContext extends HostCallInput {
  /** The live connection the call runs on, once it has one. */
  connection?: unknown;
}

const notProvided = () => Promise.reject(new Error('not provided'));

export const hostCallMachine = setup({
  types: {} as { input: HostCallInput; context: HostCallContext },
  actors: {
    /** Resolves with the live connection; answers the session (and resolves nothing) when there is none. */
    awaitConnection: fromPromise<unknown, HostCallInput>(notProvided),
    /** Runs the operation on the connection and answers the session. */
    runCall: fromPromise<unknown, HostCallInput & { connection: unknown }>(notProvided),
  },
  guards: {
    hasConnection: ({ event }) => (event as { output?: unknown }).output !== undefined,
  },
}).createMachine({
  id: 'hostCall',
  initial: 'waiting',
  context: ({ input }) => ({ ...input }),
  states: {
    waiting: {
      invoke: {
        id: 'awaitConnection',
        src: 'awaitConnection',
        input: ({ context }) => ({ id: context.id, ping: context.ping, work: context.work }),
        onDone: [
          {
            guard: 'hasConnection',
            target: 'running',
            actions: assign({ connection: ({ event }) => event.output }),
          },
          { target: 'done' },
        ],
        onError: 'done',
      },
    },
    running: {
      tags: ['running'],
      invoke: {
        id: 'runCall',
        src: 'runCall',
        input: ({ context }) => ({
          id: context.id,
          ping: context.ping,
          work: context.work,
          connection: context.connection,
        }),
        onDone: 'done',
        onError: 'done',
      },
    },
    done: { type: 'final' },
  },
});
