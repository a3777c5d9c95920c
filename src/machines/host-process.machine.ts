// The shared host process's own life: serving.{idle, held, due} → closing → closed, with the clients
// on its socket and the stage each has reached.
//
// - A client joins `greeting` (its hello and proof not both in), is `newcomer` once proven, and says
//   what it is with its first message after that: a `probe` (its first message is `status`:
//   `pi-mcp-actors host`, a panel asking which copies are warm) or a `session`.
// - held: a session is on the line. When the last one leaves, the idle time starts (idle).
// - idle: no session; after `idleTimeout` (the host's idle time) the time is up (due). A probe neither
//   holds the host nor restarts the time; any other client leaving (a newcomer too) restarts it.
// - due: the stop waits while a client has not yet said whether it is a session (so a session
//   connecting at that moment is not cut); a session holds the host again.
// - closing: the host shuts down (`shutDown`: its socket, its clients' lines, its servers), then closed.
//
// `stopsAt` (epoch ms) is when the idle time is up, while it runs: what the host's status shows. Pure:
// the host provides `shutDown` and `idleStop` (src/host/host-server.ts).

import { assign, fromPromise, type SnapshotFrom, setup } from 'xstate';

export type ClientStage = 'greeting' | 'newcomer' | 'session' | 'probe';

export interface HostClientEntry {
  stage: ClientStage;
  /** The host's line to the client: opaque to the chart. */
  line: unknown;
}

export interface HostProcessInput {
  idleMs: number;
}

export interface HostProcessContext extends HostProcessInput {
  /** Every client on the socket, by id, with its stage: the host's one map of clients. */
  clients: Record<string, HostClientEntry>;
  /** When the idle time is up (epoch ms), while it runs. */
  stopsAt?: number;
}

export type HostProcessEvent =
  /** A line was accepted on the socket. */
  | { type: 'CLIENT_JOINED'; id: number; line: unknown }
  /** The client's hello and proof are in: the host serves it. */
  | { type: 'CLIENT_PROVEN'; id: number }
  /** Its first message after the proof: a `status` makes it a probe, anything else a session. */
  | { type: 'CLIENT_DECIDED'; id: number; probe: boolean }
  /** Its line closed. */
  | { type: 'CLIENT_LEFT'; id: number }
  /** Stop now (a signal, the socket replaced, a test). */
  | { type: 'CLOSE' };

const stageOf = (context: HostProcessContext, id: number) => context.clients[String(id)]?.stage;
const isSession = (stage: ClientStage) => stage === 'session';
const undecided = (stage: ClientStage) => stage === 'greeting' || stage === 'newcomer';

/** The clients the host serves (proven), with their stage. */
export function provenClients(context: HostProcessContext): [id: number, entry: HostClientEntry][] {
  return Object.entries(context.clients)
    .filter(([, entry]) => entry.stage !== 'greeting')
    .map(([id, entry]) => [Number(id), entry]);
}

export const hostProcessMachine = setup({
  types: {} as { input: HostProcessInput; context: HostProcessContext; events: HostProcessEvent },
  actors: {
    /** Closes the socket, the clients' lines and every instance. */
    shutDown: fromPromise<void>(() => Promise.reject(new Error('not provided'))),
  },
  actions: {
    /** The idle time is up and nobody is about to attach: say the host stops. */
    idleStop: () => {},
    join: assign({
      clients: ({ context, event }) =>
        event.type === 'CLIENT_JOINED'
          ? { ...context.clients, [event.id]: { stage: 'greeting', line: event.line } }
          : context.clients,
    }),
    setStage: assign({
      clients: ({ context, event }) => {
        const id = 'id' in event ? String(event.id) : '';
        const entry = context.clients[id];
        if (!entry) return context.clients;
        const stage: ClientStage | undefined =
          event.type === 'CLIENT_PROVEN' && entry.stage === 'greeting'
            ? 'newcomer'
            : event.type === 'CLIENT_DECIDED' && entry.stage === 'newcomer'
              ? event.probe
                ? 'probe'
                : 'session'
              : undefined;
        return stage ? { ...context.clients, [id]: { ...entry, stage } } : context.clients;
      },
    }),
    leave: assign({
      clients: ({ context, event }) =>
        event.type === 'CLIENT_LEFT'
          ? Object.fromEntries(Object.entries(context.clients).filter(([id]) => id !== String(event.id)))
          : context.clients,
    }),
    noteStopTime: assign({ stopsAt: ({ context }) => Date.now() + context.idleMs }),
    clearStopTime: assign({ stopsAt: undefined }),
  },
  guards: {
    /** The newcomer that decides says it is a session. */
    becomesSession: ({ context, event }) =>
      event.type === 'CLIENT_DECIDED' && !event.probe && stageOf(context, event.id) === 'newcomer',
    /** The client leaving was a probe (or was never known): the idle time goes on. */
    probeLeaves: ({ context, event }) => {
      const stage = 'id' in event ? stageOf(context, event.id) : undefined;
      return stage === undefined || stage === 'probe';
    },
    /** Another session stays on after this client leaves. */
    sessionsRemain: ({ context, event }) =>
      Object.entries(context.clients).some(
        ([id, entry]) => isSession(entry.stage) && !('id' in event && id === String(event.id)),
      ),
    nobodyUndecided: ({ context }) => !Object.values(context.clients).some((c) => undecided(c.stage)),
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
    CLIENT_PROVEN: { actions: 'setStage' },
    CLIENT_DECIDED: { actions: 'setStage' },
    CLIENT_LEFT: { actions: 'leave' },
  },
  states: {
    serving: {
      initial: 'idle',
      on: {
        CLIENT_DECIDED: [
          { guard: 'becomesSession', target: '.held', actions: 'setStage' },
          { actions: 'setStage' },
        ],
        CLIENT_LEFT: [
          { guard: 'probeLeaves', actions: 'leave' },
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
          description: 'no session: the idle time runs (a client leaving that is not a probe restarts it)',
          entry: 'noteStopTime',
          after: { idleTimeout: 'due' },
        },
        due: {
          description: 'the idle time is up: the stop waits for every newcomer to say what it is',
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
