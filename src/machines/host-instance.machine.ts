// One running server in the shared host, keyed by what it runs, with the sessions attached to it:
// active.{attached, unattached} → stopping → ended.
//
// - It invokes the server machine (`server`, ./server.machine.ts, the same chart sessions run), and
//   holds it like a call in flight for each session attached (CALL_STARTED / CALL_FINISHED), so its
//   health pings run only while nobody is attached.
// - Each session attached is a child (./host-attachment.machine.ts, id `attachment:<client>:<a>`):
//   the attachments are the children, the calls in flight theirs.
// - Nobody attached: an instance whose server rests after a clean close is ended at once; any other is
//   kept for `idleTime` (the server's idleTimeout, else the host's idle time), so the sessions' next
//   tries find its state and schedule, then stopped: its server closed (at most `closeDeadline`), ended.
//   An attach meanwhile holds it again.
// - ended: the host forgets it (`forgotten`); the server actor stops with it. A session attaching while
//   it stops holds it again.
//
// Pure: the host provides the server's effects, the attachments' actions and `forgotten`
// (src/host/instance.ts).

import { type ActorRefFrom, assign, enqueueActions, sendTo, setup } from 'xstate';
import { hostAttachmentMachine } from './host-attachment.machine.ts';
import { serverMachine, serverStateOf } from './server.machine.ts';
import type { ServerInput } from './server-types.ts';

/** How long a stopping instance waits for its server's connection to close. */
export const CLOSE_DEADLINE_MS = 10_000;

export interface HostInstanceInput {
  server: ServerInput;
  /** Kept this long with nobody attached (the server's idleTimeout, else the host's idle time). */
  idleMs: number;
}

type AttachmentRef = ActorRefFrom<typeof hostAttachmentMachine>;

/** What the instance reads of its server's snapshot (sent to it as an event, kept in context). */
export interface ServerView {
  /** Not started yet (`init`): a new instance before its first attach. */
  fresh: boolean;
  /** Nothing runs (`init`, `closed`). */
  resting: boolean;
  /** Failed tries so far (0 after a clean close). */
  attempt: number;
}

export interface HostInstanceContext {
  server: ServerInput;
  idleMs: number;
  /** The sessions attached, by child id: the instance's children (spawned and stopped here). */
  attachments: Record<string, AttachmentRef>;
  view: ServerView;
  /** Restarts a session asked for: a call that fails across one is told so. */
  restarts: number;
}

export type HostInstanceEvent =
  /** A session attaches (`id`: `attachment:<client>:<a>`); `client` is the host's, opaque here. */
  | { type: 'ATTACH'; id: string; a: number; client: unknown }
  /** `/mcp reconnect` in a session: close the server and start it again. */
  | { type: 'RESTART' }
  /** The host stops. */
  | { type: 'STOP' }
  /** An attachment ended. */
  | { type: `xstate.done.actor.attachment:${string}` };

/** An attachment's child id. */
export function attachmentId(clientId: number, a: number): string {
  return `attachment:${clientId}:${a}`;
}

const DONE_PREFIX = 'xstate.done.actor.';

function viewOf(snapshot: { value: unknown; hasTag(tag: string): boolean; context: { attempt: number } }) {
  return {
    fresh: serverStateOf(snapshot) === 'init',
    resting: snapshot.hasTag('resting'),
    attempt: snapshot.context.attempt,
  };
}

export const hostInstanceMachine = setup({
  types: {} as { input: HostInstanceInput; context: HostInstanceContext; events: HostInstanceEvent },
  actors: { server: serverMachine, attachment: hostAttachmentMachine },
  actions: {
    /** The host lets it go (its map of instances).*/
    forgotten: () => {},
    /** Kept unattached for its idle time and unused: say it is stopped. */
    stoppedUnused: () => {},
    spawnAttachment: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'ATTACH' || context.attachments[event.id]) return;
      enqueue.assign({
        attachments: ({ spawn }) => ({
          ...context.attachments,
          [event.id]: spawn('attachment', { id: event.id, input: { a: event.a, client: event.client } }),
        }),
      });
      enqueue.sendTo('server', { type: 'CALL_STARTED' });
    }),
    /** An attachment ended: it no longer holds the server. */
    dropAttachment: enqueueActions(({ context, event, enqueue }) => {
      const id = (event as { type: string }).type.slice(DONE_PREFIX.length);
      if (!context.attachments[id]) return;
      enqueue.stopChild(id);
      enqueue.assign({
        attachments: Object.fromEntries(Object.entries(context.attachments).filter(([k]) => k !== id)),
      });
      enqueue.sendTo('server', { type: 'CALL_FINISHED' });
    }),
    restart: enqueueActions(({ enqueue }) => {
      enqueue.assign({ restarts: ({ context }) => context.restarts + 1 });
      // As a session's own RECONNECT: close whatever runs, then connect afresh.
      enqueue.sendTo('server', { type: 'CLOSE' });
      enqueue.sendTo('server', { type: 'RETRY' });
    }),
    closeServer: sendTo('server', { type: 'CLOSE' }),
    /** The server's state, sent to the instance as an event (its snapshot), kept in context. */
    viewServer: assign({
      view: ({ context, event }) => {
        const { snapshot } = event as { snapshot?: Parameters<typeof viewOf>[0] };
        return snapshot ? viewOf(snapshot) : context.view;
      },
    }),
  },
  guards: {
    nobodyAttached: ({ context }) => Object.keys(context.attachments).length === 0,
    somebodyAttached: ({ context }) => Object.keys(context.attachments).length > 0,
    /** Rests after a clean close (not a new instance, not after failed tries). */
    restsClean: ({ context }) => context.view.resting && !context.view.fresh && context.view.attempt === 0,
    serverRests: ({ context }) => context.view.resting,
  },
  delays: {
    idleTime: ({ context }) => context.idleMs,
    closeDeadline: CLOSE_DEADLINE_MS,
  },
}).createMachine({
  id: 'hostInstance',
  initial: 'active',
  context: ({ input }) => ({
    server: input.server,
    idleMs: input.idleMs,
    attachments: {},
    view: { fresh: true, resting: true, attempt: 0 },
    restarts: 0,
  }),
  invoke: {
    id: 'server',
    src: 'server',
    input: ({ context }) => context.server,
    onSnapshot: { actions: 'viewServer' },
    onError: '.ended',
  },
  on: {
    'xstate.done.actor.*': { actions: 'dropAttachment' },
  },
  states: {
    active: {
      initial: 'attached',
      on: {
        ATTACH: { target: '.attached', actions: 'spawnAttachment' },
        RESTART: { actions: 'restart' },
        STOP: 'stopping',
      },
      states: {
        attached: {
          always: { guard: 'nobodyAttached', target: 'unattached' },
        },
        unattached: {
          description: 'nobody attached: ended at once after a clean close, else kept for idleTime',
          always: { guard: 'restsClean', target: '#hostInstance.ended' },
          after: { idleTime: { target: '#hostInstance.stopping', actions: 'stoppedUnused' } },
        },
      },
    },
    stopping: {
      description: 'its server closes; a session attaching meanwhile holds it again (the attach retries it)',
      entry: 'closeServer',
      on: { ATTACH: { target: 'active.attached', actions: 'spawnAttachment' } },
      always: { guard: 'serverRests', target: 'ended' },
      after: { closeDeadline: 'ended' },
    },
    ended: { type: 'final', entry: 'forgotten' },
  },
});
