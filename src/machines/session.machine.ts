// The root supervisor: one per Pi runtime. Owns the session (start, stop, generation), spawns one
// server actor per enabled server, runs the session's recorders (metadata-cache writer, protocol trace,
// call statistics) while it is open, and turns catalog changes and ToolSearch activations into effects
// on the host. What decides its behaviour for a session (what the user and the model were told, what
// the user allowed) is in its context, reset with the generation. Pure: every effect is a named actor
// or action that the runtime provides.

import {
  type AnyActorRef,
  assign,
  cancel,
  type EventObject,
  enqueueActions,
  fromCallback,
  fromPromise,
  raise,
  setup,
} from 'xstate';
import type { LoadedConfig, ServerDefinition } from '../config/types.ts';
import type { ServerCatalog } from '../ports/mcp.ts';
import type { LastFailure } from '../ports/server-state.ts';
import { serverMachine } from './server.machine.ts';
import type { Connector, ServerContext } from './server-types.ts';

/** What Pi told us at session_start. */
export interface StartRequest {
  cwd: string;
  projectTrusted: boolean;
  /** Trusted only by Pi's default: servers of project files need the user's own consent (issue 23). */
  askConsent?: boolean;
  reason?: string;
}

/** A server's tools and resources as far as we know them (from the cache or a live connection). */
export type KnownCatalog = Pick<ServerCatalog, 'tools' | 'resources'> &
  Partial<Pick<ServerCatalog, 'serverInfo' | 'instructions' | 'prompts' | 'resourceTemplates'>>;

export interface LoadedSession {
  config: LoadedConfig;
  /** Valid metadata-cache entries by server name. */
  cached: Record<string, KnownCatalog>;
  /** ToolSearch's description for this session: built once, never changed. */
  toolSearchDescription: string;
  /** The host told the config's diagnostics already (Pi's startup path read this session for the runtime). */
  diagnosticsTold?: boolean;
}

export interface SessionInput {
  connector: Connector;
}

export interface SessionContext {
  connector: Connector;
  generation: number;
  request?: StartRequest;
  config?: LoadedConfig;
  /** Known tools/resources per server; live catalogs replace cached ones. */
  catalogs: Record<string, KnownCatalog>;
  /** Servers whose catalog came from the cache and has not been confirmed live yet. */
  fromCache: string[];
  toolSearchDescription: string;
  /** Tool names active this session: loaded by ToolSearch or pinned. */
  activated: string[];
  /** The part of `activated` the user made direct for this session (the /mcp panel's `d`). */
  pinned: string[];
  /** Servers disabled for this session with /mcp disable. */
  disabled: string[];
  /** A disabled server's last failure, handed to its actor when it is enabled again. */
  failures: Record<string, LastFailure>;
  /** Whether the host has told this session's config diagnostics (Pi's startup path may have). */
  diagnosticsTold: boolean;
  /** `server:state` troubles (needs auth, backoff) the user has been notified of this session. */
  notified: string[];
  /** `server:kind` troubles the model has read of in a ToolSearch answer this session. */
  troublesTold: string[];
  /** Servers whose instructions the model has read in a ToolSearch answer this session. */
  instructionsTold: string[];
  /** `approveTools` calls the user allowed for the session: `server@<definition hash>`, or `…/tool`. */
  approved: string[];
  /** A new session asked to start while this one was open: it starts once this one has stopped. */
  restart?: StartRequest;
  /** Servers removed or changed by a config edit: they finish their calls in flight, then close. */
  retiring: string[];
  /** What the last config edit did (`config changed: +beta −alpha`), for the status line and /mcp. */
  configNote?: string;
  /** The last save that was not applied and why (told once); cleared by the next good one. */
  configError?: string;
}

/** The config files to watch (src/actors/config-watch.ts). */
export interface ConfigWatchInput {
  files: string[];
}
export type ConfigWatchEvent = { type: 'WATCH'; files: string[] };

/** A server actor to drain: when it has no call in flight, it is closed; then DRAINED is sent back. */
export interface DrainInput {
  name: string;
  server: AnyActorRef;
  generation: number;
  parentRef: AnyActorRef;
}

/** A config edit, checked and diffed by the runtime (src/config/config-diff.ts): what to apply. */
export interface ConfigChange {
  config: LoadedConfig;
  added: string[];
  removed: string[];
  changed: string[];
  /** Known catalogs for the new config (the removed and changed servers' dropped, the cache's added). */
  catalogs: Record<string, KnownCatalog>;
  toolSearchDescription: string;
  /** `config changed: +beta −alpha, notes restarted` */
  note: string;
  /** A bad save that still holds (what it broke keeps its last good version); absent: the files are good. */
  configError?: string;
}

/** How long the watcher's burst of events (an editor's write, rename, several writes) settles. */
export const CONFIG_DEBOUNCE_MS = 150;

/** What the session's recorders (metadata-cache writer, protocol trace, call statistics) start from. */
export interface RecorderInput {
  cwd: string;
  config: LoadedConfig;
}

/** A live catalog for the metadata-cache writer. */
export interface CacheWrite {
  type: 'WRITE';
  name: string;
  catalog: ServerCatalog;
}

/** The server actors the shutdown sent CLOSE to: it waits until none of them is closing. */
export interface ServersClosedInput {
  servers: AnyActorRef[];
}

/** What the shutdown waits for once the connections are closed: the recorders' flush. */
export interface ShutdownInput {
  recorders: AnyActorRef[];
}

/** The ids of the actors that record the session while it is open. */
export const RECORDERS = ['cacheWriter', 'trace', 'stats'] as const;

export type SessionEvent =
  | { type: 'SESSION_START'; request: StartRequest }
  | { type: 'SESSION_SHUTDOWN' }
  | { type: 'TURN_END' }
  /** A file the config came from may have changed (the watcher): the check waits for `configDebounce`. */
  | { type: 'CONFIG_TOUCHED' }
  /** Read the config files again now (`force`: even when their size and times look unchanged). */
  | { type: 'CONFIG_CHECK'; force?: boolean }
  | ({ type: 'CONFIG_CHANGED'; generation: number } & ConfigChange)
  /** A save that does not parse or validate: the last good config stays; `message` says why. */
  | { type: 'CONFIG_REJECTED'; generation: number; message: string }
  | { type: 'SERVER.DRAINED'; name: string; generation: number }
  | { type: 'SERVER.STATUS'; name: string; generation: number; state: string; lastError?: unknown }
  | { type: 'SERVER.CATALOG'; name: string; generation: number; catalog: ServerCatalog }
  /** `pinned`: made direct for the session by the user (the /mcp panel's `d`), not loaded by ToolSearch. */
  | { type: 'ACTIVATE'; names: string[]; pinned?: boolean }
  /** Takes tools out of the session's active set again (the /mcp panel's "make direct" toggle). */
  | { type: 'DEACTIVATE'; names: string[] }
  | { type: 'RECONNECT'; server?: string }
  | { type: 'ENABLE'; server: string }
  | { type: 'DISABLE'; server: string }
  /** A ToolSearch answer told the model of these troubles (`server:kind`) and these servers' instructions. */
  | { type: 'MODEL_TOLD'; troubles?: string[]; instructions?: string[] }
  /** The user allowed a server's or a tool's calls for the session (src/tools/approval.ts). */
  | { type: 'APPROVED'; grant: string; generation: number };

export const serverId = (name: string) => `server:${name}`;
const drainId = (name: string) => `drain:${name}`;
/** At most this many servers connect at once at session start. */
export const WARMUP_CONCURRENCY = 10;

/** What each generation starts from: nothing loaded, activated, told or approved yet. */
function freshGeneration() {
  return {
    catalogs: {},
    fromCache: [],
    toolSearchDescription: '',
    activated: [],
    pinned: [],
    disabled: [],
    failures: {},
    diagnosticsTold: false,
    notified: [],
    troublesTold: [],
    instructionsTold: [],
    approved: [],
    retiring: [],
    configNote: undefined,
    configError: undefined,
  } satisfies Partial<SessionContext>;
}

function definitions(context: SessionContext): ServerDefinition[] {
  return (context.config?.servers ?? []).filter((d) => !context.disabled.includes(d.name));
}

/** How a server actor is spawned: id and systemId `server:<name>`, what it already knows from the cache. */
function serverSpawn(context: SessionContext, definition: ServerDefinition, self: AnyActorRef) {
  const known = context.catalogs[definition.name];
  const failure = context.failures[definition.name];
  return {
    id: serverId(definition.name),
    systemId: serverId(definition.name),
    input: {
      definition,
      generation: context.generation,
      parentRef: self,
      connector: context.connector,
      ...(known ? { knownCatalog: { tools: known.tools, resources: known.resources } } : {}),
      ...(failure ? { lastFailure: failure } : {}),
    },
  };
}

function recorderInput({ context }: { context: SessionContext }): RecorderInput {
  return { cwd: context.request?.cwd ?? '', config: context.config! };
}

/** Servers to connect at start: eager and keep-alive ones, and every server we know no tools of. */
export function warmupServers(context: SessionContext): string[] {
  return definitions(context)
    .filter((d) => d.lifecycle !== 'lazy' || !context.catalogs[d.name])
    .map((d) => d.name);
}

function troubleKey(event: { name: string; state: string }): string {
  return `${event.name}:${event.state}`;
}

export const sessionMachine = setup({
  types: {} as {
    input: SessionInput;
    context: SessionContext;
    events: SessionEvent;
  },
  actors: {
    server: serverMachine,
    loadSession: fromPromise<LoadedSession, { request: StartRequest; generation: number }>(async () => {
      throw new Error('loadSession not provided');
    }),
    warmup: fromPromise<void, { servers: AnyActorRef[]; limit: number }>(async () => {
      throw new Error('warmup not provided');
    }),
    /** Watches the config's files (CONFIG_TOUCHED); WATCH replaces the list. */
    configWatch: fromCallback<ConfigWatchEvent, ConfigWatchInput>(() => {
      throw new Error('configWatch not provided');
    }),
    /** Waits until the server has no call in flight, closes it, and sends SERVER.DRAINED. */
    drainServer: fromPromise<void, DrainInput>(async () => {
      throw new Error('drainServer not provided');
    }),
    /** Waits until none of the servers told to CLOSE is closing any more (their processes ended). */
    serversClosed: fromPromise<void, ServersClosedInput>(async () => {
      throw new Error('serversClosed not provided');
    }),
    /** Waits for the recorders' flush (cache writes, trace, stats). */
    shutdown: fromPromise<void, ShutdownInput>(async () => {
      throw new Error('shutdown not provided');
    }),
    // The recorders run while the session is open; each flushes what is pending when it stops.
    /** Writes each live catalog (WRITE) to the metadata cache. */
    cacheWriter: fromCallback<CacheWrite, RecorderInput>(() => {
      throw new Error('cacheWriter not provided');
    }),
    /** The protocol trace of `trace` servers, one file per session. */
    trace: fromCallback<EventObject, RecorderInput>(() => {
      throw new Error('trace not provided');
    }),
    /** Call statistics (settings.captureStats). */
    stats: fromCallback<EventObject, RecorderInput>(() => {
      throw new Error('stats not provided');
    }),
  },
  actions: {
    // Host effects, provided by the runtime (src/actors/session-actor.ts).
    /** Once per session, on the way into running: ToolSearch's description never changes after. */
    registerToolSearch: () => {},
    registerTools: () => {},
    syncActiveTools: () => {},
    publishStatus: () => {},
    /** On SERVER.STATUS: tell the user once about a server that needs auth or failed. */
    notifyStatus: () => {},
    /** On SERVER.CATALOG: the metadata-cache writer persists the server's catalog. */
    writeCache: enqueueActions(({ event, enqueue }) => {
      if (event.type !== 'SERVER.CATALOG') return;
      enqueue.sendTo('cacheWriter', {
        type: 'WRITE',
        name: event.name,
        catalog: event.catalog,
      } as CacheWrite);
    }),
    reportDiagnostics: () => {},
    /** On CONFIG_CHECK and TURN_END: the runtime reads the config again if its files changed, and answers
     * CONFIG_CHANGED or CONFIG_REJECTED (nothing when nothing changed). */
    checkConfig: () => {},
    /** On CONFIG_CHANGED and CONFIG_REJECTED: tell the user what the edit did (once). */
    notifyConfig: () => {},
    /** On CONFIG_CHANGED: ToolSearch is registered again if its description changed (between turns). */
    updateToolSearch: () => {},
    /** On CONFIG_CHANGED: the watcher follows the new list of files. */
    watchConfigFiles: enqueueActions(({ context, enqueue }) => {
      enqueue.sendTo('configWatch', {
        type: 'WATCH',
        files: (context.config?.files ?? []).map((f) => f.file),
      } satisfies ConfigWatchEvent);
    }),
    /** The watcher's burst settles before the files are read. */
    debounceConfigCheck: enqueueActions(({ enqueue }) => {
      enqueue(cancel('configCheck'));
      enqueue(raise({ type: 'CONFIG_CHECK', force: true }, { id: 'configCheck', delay: 'configDebounce' }));
    }),
    /**
     * An edit applied: added servers are spawned; removed and changed ones drain (finish their calls,
     * close, stop: SERVER.DRAINED), and a changed one starts again from the new definition then.
     */
    applyConfig: enqueueActions(({ context, event, enqueue, self }) => {
      if (event.type !== 'CONFIG_CHANGED') return;
      const children: Record<string, AnyActorRef | undefined> = self.getSnapshot()?.children ?? {};
      const retiring = [...context.retiring];
      for (const name of [...event.removed, ...event.changed]) {
        const child = children[serverId(name)];
        if (!child || retiring.includes(name)) continue;
        retiring.push(name);
        enqueue.spawnChild('drainServer', {
          id: drainId(name),
          input: { name, server: child, generation: context.generation, parentRef: self },
        });
      }
      const next: SessionContext = {
        ...context,
        config: event.config,
        catalogs: event.catalogs,
        fromCache: context.fromCache.filter((n) => n in event.catalogs && !event.changed.includes(n)),
        toolSearchDescription: event.toolSearchDescription,
        retiring,
        configNote: event.note,
        configError: event.configError,
      };
      enqueue.assign({
        config: next.config,
        catalogs: next.catalogs,
        fromCache: next.fromCache,
        toolSearchDescription: next.toolSearchDescription,
        retiring: next.retiring,
        configNote: next.configNote,
        configError: next.configError,
      });
      for (const definition of definitions(next)) {
        if (!event.added.includes(definition.name) || children[serverId(definition.name)]) continue;
        enqueue.spawnChild('server', serverSpawn(next, definition, self));
        if (definition.lifecycle !== 'lazy') enqueue.sendTo(serverId(definition.name), { type: 'CONNECT' });
      }
    }),
    /** A drained server stops; if the config still has it (changed), it starts again from its new definition. */
    replaceDrained: enqueueActions(({ context, event, enqueue, self }) => {
      if (event.type !== 'SERVER.DRAINED') return;
      enqueue.stopChild(serverId(event.name));
      enqueue.stopChild(drainId(event.name));
      enqueue.assign({ retiring: context.retiring.filter((n) => n !== event.name) });
      const definition = definitions(context).find((d) => d.name === event.name);
      if (!definition) return;
      enqueue.spawnChild('server', serverSpawn(context, definition, self));
      if (definition.lifecycle !== 'lazy') enqueue.sendTo(serverId(definition.name), { type: 'CONNECT' });
    }),
    rememberConfigError: assign(({ context, event }) =>
      event.type === 'CONFIG_REJECTED'
        ? { configError: event.message }
        : { configError: context.configError },
    ),
    /** Loading config or cache failed unexpectedly: tell the user; MCP stays off this session. */
    reportLoadFailure: () => {},

    nextGeneration: assign({
      generation: ({ context }) => context.generation + 1,
      request: ({ context, event }) =>
        event.type === 'SESSION_START' ? event.request : (context.restart ?? context.request),
      config: undefined,
      restart: undefined,
      ...freshGeneration(),
    }),
    /** The latest start asked for while the session stops wins. */
    rememberRestart: assign({
      restart: ({ context, event }) => (event.type === 'SESSION_START' ? event.request : context.restart),
    }),
    /** A shutdown while a restart waits: the session ends instead. */
    forgetRestart: assign({ restart: undefined }),
    assignLoaded: assign(({ event }) => {
      const loaded = (event as unknown as { output: LoadedSession }).output;
      return {
        config: loaded.config,
        catalogs: loaded.cached,
        fromCache: Object.keys(loaded.cached),
        toolSearchDescription: loaded.toolSearchDescription,
        diagnosticsTold: loaded.diagnosticsTold === true,
      };
    }),
    rememberNotified: assign(({ context, event }) =>
      event.type === 'SERVER.STATUS' ? { notified: [...context.notified, troubleKey(event)] } : {},
    ),
    rememberApproval: assign(({ context, event }) =>
      event.type === 'APPROVED' && !context.approved.includes(event.grant)
        ? { approved: [...context.approved, event.grant] }
        : {},
    ),
    rememberTold: assign(({ context, event }) =>
      event.type === 'MODEL_TOLD'
        ? {
            troublesTold: [...new Set([...context.troublesTold, ...(event.troubles ?? [])])],
            instructionsTold: [...new Set([...context.instructionsTold, ...(event.instructions ?? [])])],
          }
        : {},
    ),
    assignCatalog: assign(({ context, event }) => {
      if (event.type !== 'SERVER.CATALOG') return {};
      return {
        catalogs: { ...context.catalogs, [event.name]: event.catalog },
        fromCache: context.fromCache.filter((n) => n !== event.name),
      };
    }),
    assignActivated: assign(({ context, event }) => {
      if (event.type !== 'ACTIVATE') return {};
      const activated = [...new Set([...context.activated, ...event.names])];
      return event.pinned
        ? { activated, pinned: [...new Set([...context.pinned, ...event.names])] }
        : { activated };
    }),
    assignDeactivated: assign(({ context, event }) =>
      event.type === 'DEACTIVATE'
        ? {
            activated: context.activated.filter((n) => !event.names.includes(n)),
            pinned: context.pinned.filter((n) => !event.names.includes(n)),
          }
        : {},
    ),
    spawnServers: enqueueActions(({ context, enqueue, self }) => {
      for (const definition of definitions(context)) {
        enqueue.spawnChild('server', serverSpawn(context, definition, self));
      }
    }),
    stopServers: enqueueActions(({ enqueue, self }) => {
      for (const id of Object.keys(self.getSnapshot()?.children ?? {})) {
        if (id.startsWith('server:') || id.startsWith('drain:')) enqueue.stopChild(id);
      }
    }),
    /** The connections close through their actors' `closing` state, which the shutdown can wait for. */
    closeServers: enqueueActions(({ enqueue, self }) => {
      for (const id of Object.keys(self.getSnapshot()?.children ?? {})) {
        if (id.startsWith('server:')) enqueue.sendTo(id, { type: 'CLOSE' });
      }
    }),
    /** A disabled server stops on the first status it reports after DISABLE (`closed`, its close ended). */
    stopDisabledServer: enqueueActions(({ event, enqueue }) => {
      if (event.type === 'SERVER.STATUS') enqueue.stopChild(serverId(event.name));
    }),
    reconnect: enqueueActions(({ context, event, enqueue }) => {
      const only = event.type === 'RECONNECT' ? event.server : undefined;
      for (const d of definitions(context)) {
        if (only && d.name !== only) continue;
        enqueue.sendTo(serverId(d.name), { type: 'CLOSE' });
        enqueue.sendTo(serverId(d.name), { type: 'RETRY' });
      }
    }),
    // A disabled server closes its connection first (the status it reports next stops it: see
    // stopDisabledServer); one with nothing running stops at once.
    disableServer: enqueueActions(({ context, event, enqueue, self }) => {
      if (event.type !== 'DISABLE') return;
      const id = serverId(event.server);
      const child = self.getSnapshot()?.children[id] as AnyActorRef | undefined;
      // Its failure is kept for the actor that runs it when it is enabled again (the next try replaces it).
      const failed = child?.getSnapshot().context as ServerContext | undefined;
      const failures = failed?.lastError
        ? {
            ...context.failures,
            [event.server]: {
              error: failed.lastError,
              stderrTail: failed.stderrTail,
              attempt: failed.attempt,
            },
          }
        : context.failures;
      if (!child || child.getSnapshot().hasTag('resting')) enqueue.stopChild(id);
      else enqueue.sendTo(id, { type: 'CLOSE' });
      enqueue.assign({ disabled: [...context.disabled, event.server], failures });
    }),
    // A server enabled again before its close ended keeps its actor (it is asked to connect, if eager).
    enableServer: enqueueActions(({ context, event, enqueue, self }) => {
      if (event.type !== 'ENABLE') return;
      const definition = context.config?.servers.find((d) => d.name === event.server);
      if (!definition) return;
      const { [event.server]: _handedOver, ...failures } = context.failures;
      enqueue.assign({ disabled: context.disabled.filter((n) => n !== event.server), failures });
      if (!self.getSnapshot()?.children[serverId(definition.name)])
        enqueue.spawnChild('server', serverSpawn(context, definition, self));
      if (definition.lifecycle !== 'lazy') enqueue.sendTo(serverId(definition.name), { type: 'CONNECT' });
    }),
    reviveServers: enqueueActions(({ context, enqueue }) => {
      for (const d of definitions(context)) {
        if (d.lifecycle !== 'lazy') enqueue.sendTo(serverId(d.name), { type: 'CONNECT' });
      }
    }),
  },
  guards: {
    isRestartPending: ({ context }) => context.restart !== undefined,
    /** A rejected save the user has not been told of yet (the same error again is not told twice). */
    isNewConfigError: ({ context, event }) =>
      event.type === 'CONFIG_REJECTED' &&
      event.generation === context.generation &&
      event.message !== context.configError,
    isCurrentGeneration: ({ context, event }) =>
      'generation' in event && event.generation === context.generation,
    isActiveServer: ({ context, event }) =>
      'server' in event &&
      typeof event.server === 'string' &&
      definitions(context).some((d) => d.name === event.server),
    isDisabledServer: ({ context, event }) =>
      'server' in event && typeof event.server === 'string' && context.disabled.includes(event.server),
    /**
     * A disabled server of this session reports a state: `closed` once its close has ended (`closing` is
     * not reported), or any other if something asked it to connect meanwhile. Either way it stops now.
     */
    isDisabledServerStatus: ({ context, event }) =>
      event.type === 'SERVER.STATUS' &&
      event.generation === context.generation &&
      context.disabled.includes(event.name),
    /** A current server needs auth or is in backoff, and the user has not been told of that this session. */
    isNewTrouble: ({ context, event }) =>
      event.type === 'SERVER.STATUS' &&
      event.generation === context.generation &&
      (event.state === 'needsAuth' || event.state === 'backoff') &&
      !context.notified.includes(troubleKey(event)),
  },
  delays: {
    configDebounce: CONFIG_DEBOUNCE_MS,
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({
    connector: input.connector,
    generation: 0,
    ...freshGeneration(),
  }),
  initial: 'idle',
  states: {
    idle: {
      description: 'no session: nothing runs',
      on: { SESSION_START: { target: 'starting', actions: 'nextGeneration' } },
    },
    starting: {
      description: 'a new generation reads its config and cache (the last one has stopped)',
      invoke: {
        id: 'loadSession',
        src: 'loadSession',
        input: ({ context }) => ({ request: context.request!, generation: context.generation }),
        onDone: { target: 'open', actions: ['assignLoaded', 'spawnServers'] },
        onError: { target: 'idle', actions: 'reportLoadFailure' },
      },
      on: {
        SESSION_START: { target: 'starting', reenter: true, actions: 'nextGeneration' },
        SESSION_SHUTDOWN: { target: 'idle' },
      },
    },
    open: {
      description: 'the session is open: its recorders run until it is idle again',
      invoke: [
        { id: 'cacheWriter', src: 'cacheWriter', input: recorderInput },
        { id: 'trace', src: 'trace', input: recorderInput },
        { id: 'stats', src: 'stats', input: recorderInput },
      ],
      initial: 'running',
      states: {
        running: {
          description: 'tools registered; servers connect on use (eager and keep-alive ones at once)',
          entry: [
            'registerToolSearch',
            'registerTools',
            'syncActiveTools',
            'publishStatus',
            'reportDiagnostics',
          ],
          invoke: [
            {
              id: 'warmup',
              src: 'warmup',
              input: ({ context, self }) => ({
                // Children spawned on the way into this state are not in the snapshot yet; the system knows them.
                servers: warmupServers(context)
                  .map((name) => self.system.get(serverId(name)) as AnyActorRef | undefined)
                  .filter((ref): ref is AnyActorRef => ref !== undefined),
                limit: WARMUP_CONCURRENCY,
              }),
            },
            {
              id: 'configWatch',
              src: 'configWatch',
              input: ({ context }) => ({ files: (context.config?.files ?? []).map((f) => f.file) }),
            },
          ],
          on: {
            'SERVER.CATALOG': {
              guard: 'isCurrentGeneration',
              actions: ['assignCatalog', 'registerTools', 'syncActiveTools', 'writeCache'],
            },
            'SERVER.STATUS': [
              { guard: 'isDisabledServerStatus', actions: 'stopDisabledServer' },
              { guard: 'isNewTrouble', actions: ['publishStatus', 'notifyStatus', 'rememberNotified'] },
              { guard: 'isCurrentGeneration', actions: 'publishStatus' },
            ],
            ACTIVATE: {
              // A large catalog registers a tool only once it is loaded (src/session/registered-tools.ts).
              actions: ['assignActivated', 'registerTools', 'syncActiveTools'],
            },
            DEACTIVATE: {
              actions: ['assignDeactivated', 'syncActiveTools'],
            },
            MODEL_TOLD: { actions: 'rememberTold' },
            APPROVED: { guard: 'isCurrentGeneration', actions: 'rememberApproval' },
            RECONNECT: { actions: 'reconnect' },
            DISABLE: {
              guard: 'isActiveServer',
              actions: ['disableServer', 'syncActiveTools', 'publishStatus'],
            },
            ENABLE: {
              guard: 'isDisabledServer',
              actions: ['enableServer', 'syncActiveTools', 'publishStatus'],
            },
            TURN_END: { actions: ['reviveServers', 'checkConfig'] },
            CONFIG_TOUCHED: { actions: 'debounceConfigCheck' },
            CONFIG_CHECK: { actions: 'checkConfig' },
            CONFIG_CHANGED: {
              guard: 'isCurrentGeneration',
              actions: [
                'applyConfig',
                'updateToolSearch',
                'registerTools',
                'syncActiveTools',
                'watchConfigFiles',
                'publishStatus',
                'notifyConfig',
              ],
            },
            CONFIG_REJECTED: {
              guard: 'isNewConfigError',
              actions: ['rememberConfigError', 'publishStatus', 'notifyConfig'],
            },
            'SERVER.DRAINED': {
              guard: 'isCurrentGeneration',
              actions: ['replaceDrained', 'publishStatus'],
            },
            SESSION_SHUTDOWN: { target: 'stopping' },
            // Pi's /new, /reload, /resume: the old generation stops as at a shutdown, then the new one starts.
            SESSION_START: { target: 'stopping', actions: 'rememberRestart' },
          },
        },
        stopping: {
          description:
            'the servers close their connections, then stop; then the recorders flush; then a new session asked for meanwhile starts',
          entry: 'closeServers',
          initial: 'closingServers',
          on: {
            SESSION_START: { actions: 'rememberRestart' },
            SESSION_SHUTDOWN: { actions: 'forgetRestart' },
          },
          states: {
            closingServers: {
              description: 'until no server is closing (every server process is gone)',
              invoke: {
                id: 'serversClosed',
                src: 'serversClosed',
                input: ({ self }) => ({
                  servers: Object.entries(self.getSnapshot()?.children ?? {})
                    .filter(([id]) => id.startsWith('server:'))
                    .map(([, ref]) => ref as AnyActorRef),
                }),
                onDone: 'flushing',
                onError: 'flushing',
              },
            },
            flushing: {
              description: 'the server actors stop; the recorders flush what is pending',
              entry: 'stopServers',
              invoke: {
                id: 'shutdown',
                src: 'shutdown',
                input: ({ self }) => {
                  const children: Record<string, AnyActorRef | undefined> =
                    self.getSnapshot()?.children ?? {};
                  return {
                    recorders: RECORDERS.map((id) => children[id]).filter((ref) => ref !== undefined),
                  };
                },
                onDone: [
                  { guard: 'isRestartPending', target: '#session.starting', actions: 'nextGeneration' },
                  { target: '#session.idle' },
                ],
                onError: [
                  { guard: 'isRestartPending', target: '#session.starting', actions: 'nextGeneration' },
                  { target: '#session.idle' },
                ],
              },
            },
          },
          exit: 'publishStatus',
        },
      },
    },
  },
});
