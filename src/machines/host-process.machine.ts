// The shared host process's own life: serving.{idle, held, due} → closing → closed, with a child per
// client on its socket.
//
// - Each line is a child (./host-line.machine.ts, id `line:<id>`): `greeting` (its hello and proof not
//   both in), `newcomer` once proven, then what its first message after that says it is: a `probe`
//   (`status`: `pi-mcp-actors host`, a panel asking which copies are warm) or a `session`.
//   A newcomer silent past its patience stands by (`standby`: a session's line ready ahead of use). It tells
//   this chart each stage it reaches; its line closing stops it.
// - held: a session is on the line. When the last one leaves, the idle time starts (idle).
// - idle: no session; after `idleTimeout` (the host's idle time) the time is up (due). A probe neither
//   holds the host nor restarts the time, nor does a line that never proved itself or one standing by;
//   any other client leaving (a proven newcomer too) restarts it.
// - due: the stop waits while a client has not yet said whether it is a session (a greeting or a
//   newcomer line, so a session connecting at that moment is not cut; not one standing by, which may
//   stay silent for hours); a session holds the host again.
// - closing: the host shuts down (`shutDown`: its socket, its clients' lines, its servers), then closed.
//
// `stopsAt` (epoch ms) is when the idle time is up, while it runs: what the host's status shows. Pure:
// the host provides `shutDown` and `idleStop` (src/host/host-server.ts).

import { type ActorRefFrom, assign, enqueueActions, fromPromise, type SnapshotFrom, setup } from 'xstate';
import { hostLineMachine, type LineStage, lineStage } from './host-line.machine.ts';

type LineRef = ActorRefFrom<typeof hostLineMachine>;

export interface HostProcessInput {
  idleMs: number;
}

export interface HostProcessContext extends HostProcessInput {
  /** Every client's line on the socket, by child id (`line:<id>`): the children, the host's one map of clients. */
  clients: Record<string, LineRef>;
  /** When the idle time is up (epoch ms), while it runs. */
  stopsAt?: number;
}

export type HostProcessEvent =
  /** A line was accepted on the socket: a child for it (`line` is the host's, opaque here). */
  | { type: 'CLIENT_JOINED'; id: number; line: unknown }
  /** A line reached a stage (its child says so). */
  | { type: 'CLIENT_STAGE'; id: number; stage: LineStage }
  /** Its line closed: its child is stopped. */
  | { type: 'CLIENT_LEFT'; id: number }
  /** Stop now (a signal, the socket replaced, a test). */
  | { type: 'CLOSE' };

/** A line's child id. */
export function lineId(id: number): string {
  return `line:${id}`;
}

function stageOf(context: HostProcessContext, id: number): LineStage | undefined {
  const ref = context.clients[lineId(id)];
  return ref ? lineStage(ref.getSnapshot()) : undefined;
}

const undecided = (stage: LineStage) => stage === 'greeting' || stage === 'newcomer';

/** The lines the host serves (proven), with their stage. */
export function provenClients(context: HostProcessContext): { ref: LineRef; stage: LineStage }[] {
  return Object.values(context.clients)
    .map((ref) => ({ ref, stage: lineStage(ref.getSnapshot()) }))
    .filter(({ stage }) => stage !== 'greeting');
}

export const hostProcessMachine = setup({
  types: {} as { input: HostProcessInput; context: HostProcessContext; events: HostProcessEvent },
  actors: {
    line: hostLineMachine,
    /** Closes the socket, the clients' lines and every instance. */
    shutDown: fromPromise<void>(() => Promise.reject(new Error('not provided'))),
  },
  actions: {
    /** The idle time is up and nobody is about to attach: say the host stops. */
    idleStop: () => {},
    join: enqueueActions(({ context, event, enqueue, self }) => {
      if (event.type !== 'CLIENT_JOINED' || context.clients[lineId(event.id)]) return;
      const id = lineId(event.id);
      enqueue.assign({
        clients: ({ spawn }) => ({
          ...context.clients,
          [id]: spawn('line', { id, input: { id: event.id, line: event.line, parentRef: self } }),
        }),
      });
    }),
    leave: enqueueActions(({ context, event, enqueue }) => {
      const id = event.type === 'CLIENT_LEFT' ? lineId(event.id) : '';
      if (!context.clients[id]) return;
      enqueue.stopChild(id);
      enqueue.assign({
        clients: Object.fromEntries(Object.entries(context.clients).filter(([k]) => k !== id)),
      });
    }),
    noteStopTime: assign({ stopsAt: ({ context }) => Date.now() + context.idleMs }),
    clearStopTime: assign({ stopsAt: undefined }),
  },
  guards: {
    /** A line says it is a session. */
    becomesSession: ({ event }) => event.type === 'CLIENT_STAGE' && event.stage === 'session',
    /** The client leaving was a probe, stood by, or never proved itself (or was never known): the idle time goes on. */
    heldNothing: ({ context, event }) => {
      const stage = event.type === 'CLIENT_LEFT' ? stageOf(context, event.id) : undefined;
      return stage === undefined || stage === 'probe' || stage === 'greeting' || stage === 'standby';
    },
    /** Another session stays on after this client leaves. */
    sessionsRemain: ({ context, event }) =>
      Object.entries(context.clients).some(
        ([id, ref]) =>
          lineStage(ref.getSnapshot()) === 'session' &&
          !(event.type === 'CLIENT_LEFT' && id === lineId(event.id)),
      ),
    nobodyUndecided: ({ context }) =>
      !Object.values(context.clients).some((ref) => undecided(lineStage(ref.getSnapshot()))),
  },
  delays: {
    idleTimeout: ({ context }) => context.idleMs,
  },
}).createMachine({
  id: 'hostProcess',
  initial: 'serving',
  context: ({ input }) => ({ idleMs: input.idleMs, clients: {} }),
  on: {
    CLIENT_JOINED: { actions: 'join' },
    CLIENT_LEFT: { actions: 'leave' },
  },
  states: {
    serving: {
      initial: 'idle',
      on: {
        CLIENT_STAGE: { guard: 'becomesSession', target: '.held' },
        CLIENT_LEFT: [
          { guard: 'heldNothing', actions: 'leave' },
          { guard: 'sessionsRemain', actions: 'leave' },
          { target: '.idle', actions: 'leave' },
        ],
        CLOSE: 'closing',
      },
      states: {
        held: {
          description: 'a session is attached: no idle time runs',
          entry: 'clearStopTime',
        },
        idle: {
          description:
            'no session: the idle time runs (a proven client leaving that is not a probe restarts it)',
          entry: 'noteStopTime',
          after: { idleTimeout: 'due' },
        },
        due: {
          description:
            'the idle time is up: the stop waits for every newcomer to say what it is (not for one standing by)',
          always: { guard: 'nobodyUndecided', target: '#hostProcess.closing', actions: 'idleStop' },
        },
      },
    },
    closing: {
      invoke: { id: 'shutDown', src: 'shutDown', onDone: 'closed', onError: 'closed' },
    },
    closed: { type: 'final' },
  },
});

/** When the host stops if no session comes (epoch ms), while its idle time runs or is up. */
export function hostStopsAt(snapshot: SnapshotFrom<typeof hostProcessMachine>): number | undefined {
  const counting = snapshot.matches({ serving: 'idle' }) || snapshot.matches({ serving: 'due' });
  return counting ? snapshot.context.stopsAt : undefined;
}
