// One session attached to a shared host's instance: attaching → live → draining → ended.
//
// - attaching: the instance is being connected for it (its attach waits as a call does); it ends if
//   that fails or the session detaches first.
// - live: the session was told it is attached, so it hears the connection's end.
// - draining: the connection ended (the instance left `connected`); the end is said once its calls in
//   flight have had their answers (a call cut by a restart says so first), then it ends.
// - ended: the host lets it go (`release`); its remaining children (calls, pings) are stopped, which
//   aborts them.
//
// Each call is a child (./host-call.machine.ts, id `call:<id>`, a health ping `ping:<id>`), so the calls
// in flight are the children and nothing counts them. Pure: the host provides `call`, `sayEnd` and
// `release` (src/host/instance.ts).

import { type ActorRefFrom, assign, enqueueActions, setup } from 'xstate';
import type { ConnectionEvent } from '../ports/connection.ts';
import { hostCallMachine } from './host-call.machine.ts';

export type HostAttachmentEvent =
  /** The attach succeeded: the session was told. */
  | { type: 'ATTACHED' }
  /** The attach failed: the session was told. */
  | { type: 'ATTACH_FAILED' }
  /** The connection ended (where the instance went); said once the calls in flight have answers. */
  | { type: 'END'; end: ConnectionEvent }
  /** The session detached, or its line closed. */
  | { type: 'DETACH' }
  /** A call (or a health ping) of the session on this attachment. */
  | { type: 'CALL'; id: number; ping: boolean; work: unknown }
  /** The session cancelled its call. */
  | { type: 'CANCEL'; id: number };

export interface HostAttachmentInput {
  /** The session's own attachment id. */
  a: number;
  /** The host's client (the session's line): opaque to the chart. */
  client: unknown;
}

type CallRef = ActorRefFrom<typeof hostCallMachine>;

export interface HostAttachmentContext extends HostAttachmentInput {
  /** Calls and pings in flight, by child id: the attachment's children (spawned and stopped here). */
  calls: Record<string, CallRef>;
  /** The connection's end to say when drained (the latest the instance gave). */
  end?: ConnectionEvent;
}

/** A call's child id: `call:<id>`, or `ping:<id>` for a health ping (not a call in flight). */
export function callChildId(id: number, ping: boolean): string {
  return `${ping ? 'ping' : 'call'}:${id}`;
}

/** The calls in flight (pings left out): what routing, draining and a restart's count read. */
export function callsInFlight(context: Pick<HostAttachmentContext, 'calls'>): CallRef[] {
  return Object.entries(context.calls)
    .filter(([id]) => id.startsWith('call:'))
    .map(([, ref]) => ref);
}

const DONE_PREFIX = 'xstate.done.actor.';

export const hostAttachmentMachine = setup({
  types: {} as {
    input: HostAttachmentInput;
    context: HostAttachmentContext;
    events: HostAttachmentEvent;
  },
  actors: { call: hostCallMachine },
  actions: {
    /** Tell the session the connection ended (`context.end`). */
    sayEnd: () => {},
    /** The host lets the attachment go: the instance is no longer held by it. */
    release: () => {},
    spawnCall: assign({
      calls: ({ context, event, spawn }) => {
        if (event.type !== 'CALL') return context.calls;
        const id = callChildId(event.id, event.ping);
        if (context.calls[id]) return context.calls;
        const ref = spawn('call', { id, input: { id: event.id, ping: event.ping, work: event.work } });
        return { ...context.calls, [id]: ref };
      },
    }),
    /** A call answered, or cancelled: its child goes. */
    dropCall: enqueueActions(({ context, event, enqueue }) => {
      const ids =
        event.type === 'CANCEL'
          ? [callChildId(event.id, false), callChildId(event.id, true)]
          : [(event as { type: string }).type.slice(DONE_PREFIX.length)];
      const gone = ids.filter((id) => context.calls[id]);
      if (gone.length === 0) return;
      for (const id of gone) enqueue.stopChild(id);
      enqueue.assign({
        calls: Object.fromEntries(Object.entries(context.calls).filter(([id]) => !gone.includes(id))),
      });
    }),
    keepEnd: assign({ end: ({ context, event }) => (event.type === 'END' ? event.end : context.end) }),
  },
  guards: {
    nothingInFlight: ({ context }) => callsInFlight(context).length === 0,
  },
}).createMachine({
  id: 'hostAttachment',
  initial: 'attaching',
  context: ({ input }) => ({ a: input.a, client: input.client, calls: {} }),
  on: {
    CALL: { actions: 'spawnCall' },
    CANCEL: { actions: 'dropCall' },
    'xstate.done.actor.*': { actions: 'dropCall' },
    DETACH: '.ended',
  },
  states: {
    attaching: {
      on: { ATTACHED: 'live', ATTACH_FAILED: 'ended' },
    },
    live: {
      on: { END: { target: 'draining', actions: 'keepEnd' } },
    },
    draining: {
      always: { guard: 'nothingInFlight', target: 'ended', actions: 'sayEnd' },
      on: { END: { actions: 'keepEnd' } },
    },
    ended: { type: 'final', entry: 'release' },
  },
});
