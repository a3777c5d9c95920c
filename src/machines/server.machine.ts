// One MCP server's connection lifecycle. The chart is the specification (docs/statecharts/server.mmd,
// generated from this file). No I/O here: `connect`, `watch` and `refresh` are placeholders that
// src/actors/server-actor.ts provides with real effects, and tests provide with tiny fakes.
//
// State ids vs. DESIGN.md names: init, connecting, connected, needsAuth (= `needs-auth`), backoff,
// closed, and `closing` between `connected` and where it goes next (the connection's close runs there,
// so whoever must wait for a server process to be gone waits for the state; it is not reported to the
// parent). `connecting` is `opening` until the server answered initialize, then `listing` its tools.
// `connected` is parallel: `usage` runs the idle timer, `tools` / `resources` refresh the
// catalog on list_changed notifications, `health` pings eager and keep-alive servers. `needsAuth`
// holds the sign-in itself (`signingIn`): whoever asks while it runs waits for the same one.
//
// Code outside src/machines/ decides by tags (`snapshot.hasTag`), never by state names: `usable`,
// `starting`, `listing`, `failsFast` (answered at once without a connect), `needsSignIn`, `signingIn`,
// `failed`, `closing`, `resting` (nothing running; the next use starts it).
//
// A server run by the shared host: the host's pushes of its copy's state arrive as HOST_STATE in any
// state and are kept in `hostCopy` (display only; what this actor does follows its own connection).

import { assign, emit, enqueueActions, fromCallback, fromPromise, setup } from 'xstate';
import type { SignInResult } from '../auth/port.ts';
import type { Connection } from '../ports/connection.ts';
import type { ConnectErrorKind } from '../ports/mcp.ts';
import type {
  CatalogList,
  FarEnd,
  HostCopyState,
  ServerCatalogUpdate,
  ServerEmitted,
  ServerState,
  ServerStatus,
  ServerTag,
} from '../ports/server-state.ts';
import {
  BACKOFF_BASE_MS,
  fullJitterDelayMs,
  HEALTH_TIMEOUT_MS,
  LIST_CHANGED_MAX_WAIT_MS,
  LIST_CHANGED_QUIET_MS,
  startupTimeoutMs,
  timerMs,
} from './server-timing.ts';
import type {
  AfterClose,
  CloseInput,
  ConnectInput,
  PingInput,
  RefreshInput,
  RefreshOutput,
  ServerContext,
  ServerEvent,
  ServerInput,
  SignInInput,
  WatchEvent,
  WatchInput,
  WatchTokensInput,
} from './server-types.ts';

const STDERR_TAIL_LINES = 20;
const STDERR_TAIL_CHARS = 4_000;
/** How many recent states a server remembers (its trail in /mcp). */
export const TRAIL_LENGTH = 8;

const CONNECT_ERROR_KINDS: ReadonlySet<string> = new Set<ConnectErrorKind>([
  'auth',
  'timeout',
  'spawn',
  'exited',
  'protocol',
  'http',
  'network',
  'aborted',
  'config',
]);

/** Reads a ConnectError structurally (machines import no values from adapters). */
function describeConnectError(error: unknown): {
  kind: ConnectErrorKind;
  message: string;
  stderrTail?: string;
  retryAt?: number;
} {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    kind?: unknown;
    message?: unknown;
    stderrTail?: unknown;
    retryAt?: unknown;
  };
  const kind =
    typeof e.kind === 'string' && CONNECT_ERROR_KINDS.has(e.kind) ? (e.kind as ConnectErrorKind) : 'protocol';
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(error);
  return {
    kind,
    message,
    ...(typeof e.stderrTail === 'string' && e.stderrTail !== '' ? { stderrTail: e.stderrTail } : {}),
    ...(typeof e.retryAt === 'number' ? { retryAt: e.retryAt } : {}),
  };
}

/** The newest lines of `tail` within the context's bounds. */
function boundTail(tail: string): string {
  const kept = tail.split('\n').slice(-STDERR_TAIL_LINES).join('\n');
  return kept.length > STDERR_TAIL_CHARS ? kept.slice(-STDERR_TAIL_CHARS) : kept;
}

function appendTail(tail: string, line: string): string {
  const last = line.replace(/\r?\n$/, '');
  return boundTail(tail === '' ? last : `${tail}\n${last}`);
}

/** Eager and keep-alive servers are pinged while connected (lazy ones are used or closed soon). */
function healthChecksApply(context: ServerContext): boolean {
  return context.lifecycle !== 'lazy' && context.definition.healthCheckMs > 0;
}

/** Lazy servers with an idle timeout close when idle; eager and keep-alive ones never do. */
function idleShutdownApplies(context: ServerContext): boolean {
  return context.lifecycle === 'lazy' && context.definition.idleTimeoutMs > 0;
}

function statusOf(context: ServerContext, state: ServerState): ServerStatus {
  const status: ServerStatus = { name: context.name, generation: context.generation, state };
  if (context.lastError) status.lastError = context.lastError;
  return status;
}

/**
 * One catalog list inside `connected`: a `*_CHANGED` notification refreshes it, once per burst — the
 * listing starts when the notifications pause (listChangedQuiet) or at the latest listChangedMaxWait
 * after the first. A change during a listing may not be in its answer: that answer is dropped and the
 * list is read again after the same wait. A failed refresh keeps the old list.
 */
function refreshRegion(
  list: CatalogList,
  changed: 'TOOLS_CHANGED' | 'RESOURCES_CHANGED' | 'PROMPTS_CHANGED',
  id: string,
) {
  const refreshing = `#${id}Listing`;
  return {
    initial: 'current' as const,
    states: {
      current: { on: { [changed]: 'pending' } },
      pending: {
        description: 'a burst of list_changed notifications: one listing once they pause',
        initial: 'settling' as const,
        after: { listChangedMaxWait: refreshing },
        states: {
          settling: {
            after: { listChangedQuiet: refreshing },
            on: { [changed]: { target: 'settling', reenter: true } },
          },
        },
      },
      refreshing: {
        id: `${id}Listing`,
        entry: { type: 'markListFresh' as const, params: { list } },
        invoke: {
          id,
          src: 'refresh' as const,
          input: ({ context }: { context: ServerContext }) => ({ connection: context.connection!, list }),
          onDone: [
            { guard: { type: 'listChangedMeanwhile' as const, params: { list } }, target: 'pending' },
            {
              target: 'current',
              actions: [
                {
                  type: 'storeRefresh' as const,
                  params: ({ event }: { event: { output: RefreshOutput } }) => ({ output: event.output }),
                },
                'notifyCatalog' as const,
              ],
            },
          ],
          onError: [
            { guard: { type: 'listChangedMeanwhile' as const, params: { list } }, target: 'pending' },
            {
              target: 'current',
              actions: {
                type: 'recordRefreshError' as const,
                params: ({ event }: { event: { error: unknown } }) => ({ list, error: event.error }),
              },
            },
          ],
        },
        on: { [changed]: { actions: { type: 'markListStale' as const, params: { list } } } },
      },
    },
  };
}

/** Where `closing` goes once the close has ended (however it ended). */
const AFTER_CLOSE = [
  { guard: { type: 'closesInto' as const, params: { state: 'backoff' as const } }, target: 'backoff' },
  { guard: { type: 'closesInto' as const, params: { state: 'connecting' as const } }, target: 'connecting' },
  { target: 'closed' },
];

export const serverMachine = setup({
  types: {} as {
    context: ServerContext;
    input: ServerInput;
    events: ServerEvent;
    emitted: ServerEmitted;
    tags: ServerTag;
  },
  actors: {
    connect: fromPromise<Connection, ConnectInput>(async () => {
      throw new Error('connect not provided');
    }),
    watch: fromCallback<WatchEvent, WatchInput>(() => {
      throw new Error('watch not provided');
    }),
    refresh: fromPromise<RefreshOutput, RefreshInput>(async () => {
      throw new Error('refresh not provided');
    }),
    ping: fromPromise<void, PingInput>(async () => {
      throw new Error('ping not provided');
    }),
    /** Closes the connection (killing a stdio server's process group); resolves once it is gone. */
    close: fromPromise<void, CloseInput>(async () => {
      throw new Error('close not provided');
    }),
    /** Sends AUTHENTICATED when a sign-in for this server appears (in any process). */
    watchTokens: fromCallback<{ type: 'AUTHENTICATED' }, WatchTokensInput>(() => () => {}),
    /** Signs in to this server (OAuth); aborted when needs-auth is left another way. */
    signIn: fromPromise<SignInResult, SignInInput>(async () => {
      throw new Error('signIn not provided');
    }),
  },
  guards: {
    isAuthError: (_, params: { error: unknown }) => describeConnectError(params.error).kind === 'auth',
    reconnectsByItself: ({ context }) => context.lifecycle !== 'lazy',
    /** The far end ended the connection and went to this state (the shared host's copy): this actor follows. */
    farEndWent: (_, params: { farEnd: FarEnd | undefined; state: FarEnd['state'] }) =>
      params.farEnd?.state === params.state,
    /** Lazy servers with an idle timeout; eager and keep-alive ones never close for being idle. */
    closesWhenIdle: ({ context }) => idleShutdownApplies(context),
    healthChecksApply: ({ context }) => healthChecksApply(context),
    nothingInFlight: ({ context }) => context.inFlight === 0,
    // Guards see the context before the event's actions: this CALL_FINISHED ends the last call.
    lastCallFinishing: ({ context }) => context.inFlight <= 1,
    signedIn: (_, params: { result: SignInResult }) => params.result.ok,
    listChangedMeanwhile: ({ context }, params: { list: CatalogList }) =>
      context.staleLists.includes(params.list),
    closesInto: ({ context }, params: { state: AfterClose }) => context.afterClose === params.state,
  },
  delays: {
    startupTimeout: ({ context }) => timerMs(startupTimeoutMs(context.definition)),
    idleTimeout: ({ context }) => timerMs(context.definition.idleTimeoutMs),
    backoff: ({ context }) => timerMs(context.backoffDelayMs ?? BACKOFF_BASE_MS),
    healthCheck: ({ context }) => timerMs(context.definition.healthCheckMs),
    healthTimeout: ({ context }) => timerMs(Math.min(HEALTH_TIMEOUT_MS, context.definition.healthCheckMs)),
    listChangedQuiet: LIST_CHANGED_QUIET_MS,
    listChangedMaxWait: LIST_CHANGED_MAX_WAIT_MS,
  },
  actions: {
    /** Entry of every top-level state: remembers it in the trail, tells the supervisor and listeners. */
    notifyStatus: enqueueActions(({ context, enqueue }, params: { state: ServerState }) => {
      enqueue.assign({
        trail: [...context.trail, { state: params.state, at: Date.now() }].slice(-TRAIL_LENGTH),
      });
      const status = statusOf(context, params.state);
      if (context.parentRef) enqueue.sendTo(context.parentRef, { type: 'SERVER.STATUS', ...status });
      enqueue.emit({ type: 'status', ...status });
    }),
    notifyCatalog: enqueueActions(({ context, enqueue }) => {
      if (!context.catalog) return;
      const update: ServerCatalogUpdate = {
        name: context.name,
        generation: context.generation,
        catalog: context.catalog,
      };
      if (context.parentRef) enqueue.sendTo(context.parentRef, { type: 'SERVER.CATALOG', ...update });
      enqueue.emit({ type: 'catalog', ...update });
    }),
    storeConnection: assign((_, params: { connection: Connection }) => ({
      connection: params.connection,
      catalog: params.connection.catalog,
      attempt: 0,
      lastError: undefined,
    })),
    storeHostCopy: assign((_, params: { copy: HostCopyState | undefined }) => ({ hostCopy: params.copy })),
    // The host's copy is known only while attached to it.
    releaseConnection: assign({ connection: undefined, hostCopy: undefined }),
    closeInto: assign((_, params: { state: AfterClose }) => ({ afterClose: params.state })),
    recordConnectError: assign(({ context }, params: { error: unknown }) => {
      const { kind, message, stderrTail, retryAt } = describeConnectError(params.error);
      return {
        lastError: { kind, detail: { cause: 'connect' as const, message }, at: Date.now() },
        stderrTail: stderrTail === undefined ? context.stderrTail : boundTail(stderrTail),
        retryAtGiven: retryAt,
      };
    }),
    recordStartupTimeout: assign(({ context }) => ({
      lastError: {
        kind: 'timeout' as const,
        detail: { cause: 'startupTimeout' as const, ms: startupTimeoutMs(context.definition) },
        at: Date.now(),
      },
      retryAtGiven: undefined,
    })),
    recordTransportClosed: assign(
      ({ context }, params: { error: string | undefined; farEnd?: FarEnd | undefined }) => {
        const { farEnd } = params;
        // The far end's own error, when it gave one, is this actor's: the same words on every surface.
        const lastError = farEnd?.lastError
          ? { kind: farEnd.lastError.kind, detail: farEnd.lastError.detail, at: Date.now() }
          : {
              kind: context.definition.transport === 'stdio' ? ('exited' as const) : ('network' as const),
              detail: { cause: 'connectionLost' as const, ...(params.error ? { reason: params.error } : {}) },
              at: Date.now(),
            };
        return { lastError, retryAtGiven: farEnd?.state === 'backoff' ? farEnd.retryAt : undefined };
      },
    ),
    recordHealthFailure: assign((_, params: { error: unknown }) => ({
      lastError: {
        kind: 'network' as const,
        detail: { cause: 'healthCheckFailed' as const, message: describeConnectError(params.error).message },
        at: Date.now(),
      },
      retryAtGiven: undefined,
    })),
    recordHealthTimeout: assign(({ context }) => ({
      lastError: {
        kind: 'timeout' as const,
        detail: {
          cause: 'healthCheckTimeout' as const,
          ms: Math.min(HEALTH_TIMEOUT_MS, context.definition.healthCheckMs),
        },
        at: Date.now(),
      },
      retryAtGiven: undefined,
    })),
    recordRefreshError: assign((_, params: { list: CatalogList; error: unknown }) => ({
      lastError: {
        kind: 'call' as const,
        detail: {
          cause: 'refreshFailed' as const,
          list: params.list,
          message: describeConnectError(params.error).message,
        },
        at: Date.now(),
      },
    })),
    storeRefresh: assign(({ context }, params: { output: RefreshOutput }) => {
      if (!context.catalog) return {};
      const { output } = params;
      return {
        catalog:
          output.list === 'tools'
            ? { ...context.catalog, tools: output.tools }
            : output.list === 'resources'
              ? {
                  ...context.catalog,
                  resources: output.resources,
                  ...(output.resourceTemplates ? { resourceTemplates: output.resourceTemplates } : {}),
                }
              : { ...context.catalog, prompts: output.prompts },
      };
    }),
    markListStale: assign(({ context }, params: { list: CatalogList }) => ({
      staleLists: context.staleLists.includes(params.list)
        ? context.staleLists
        : [...context.staleLists, params.list],
    })),
    markListFresh: assign(({ context }, params: { list: CatalogList }) => ({
      staleLists: context.staleLists.filter((l) => l !== params.list),
    })),
    clearSignIn: assign({ lastSignIn: undefined }),
    recordSignIn: assign((_, params: { result: SignInResult }) => ({
      lastSignIn: { ok: params.result.ok, message: params.result.message },
    })),
    recordSignInError: assign(({ context }, params: { error: unknown }) => ({
      lastSignIn: {
        ok: false,
        message: `${context.name}: sign-in failed: ${describeConnectError(params.error).message}`,
      },
    })),
    /** Tokens appeared in the store (this sign-in's own, or one made elsewhere meanwhile). */
    recordSignedInMeanwhile: assign(({ context }) => ({
      lastSignIn: { ok: true, message: `${context.name}: signed in.` },
    })),
    countAttempt: assign({ attempt: ({ context }) => context.attempt + 1 }),
    /** The only source of randomness; tests provide a fixed value. */
    drawJitter: assign({ jitter: () => Math.random() }),
    /** The far end's next try when it set one (one schedule: the shared host's), else this actor's own. */
    scheduleRetry: assign(({ context }) => {
      const now = Date.now();
      if (context.retryAtGiven !== undefined) {
        const delay = Math.max(0, context.retryAtGiven - now);
        return { backoffDelayMs: delay, nextRetryAt: now + delay };
      }
      const delay = fullJitterDelayMs(context.attempt, context.jitter);
      return { backoffDelayMs: delay, nextRetryAt: now + delay };
    }),
    clearRetry: assign({ backoffDelayMs: undefined, nextRetryAt: undefined, retryAtGiven: undefined }),
    countCallStarted: assign({ inFlight: ({ context }) => context.inFlight + 1 }),
    countCallFinished: assign({ inFlight: ({ context }) => Math.max(0, context.inFlight - 1) }),
    appendStderr: assign({
      stderrTail: ({ context }, params: { line: string }) => appendTail(context.stderrTail, params.line),
    }),
    emitStderr: emit(({ context }, params: { line: string }) => ({
      type: 'stderr' as const,
      name: context.name,
      generation: context.generation,
      line: params.line,
    })),
  },
}).createMachine({
  id: 'server',
  initial: 'init',
  context: ({ input }) => {
    const context: ServerContext = {
      name: input.definition.name,
      definition: input.definition,
      generation: input.generation,
      lifecycle: input.definition.lifecycle,
      connector: input.connector,
      attempt: 0,
      jitter: 1,
      stderrTail: '',
      inFlight: 0,
      trail: [],
      staleLists: [],
      afterClose: 'closed',
    };
    if (input.parentRef) context.parentRef = input.parentRef;
    if (input.knownCatalog) context.knownCatalog = input.knownCatalog;
    if (input.lastFailure) {
      context.lastError = input.lastFailure.error;
      context.stderrTail = input.lastFailure.stderrTail;
      context.attempt = input.lastFailure.attempt;
    }
    return context;
  },
  on: {
    STDERR: {
      actions: [
        { type: 'appendStderr', params: ({ event }) => ({ line: event.line }) },
        { type: 'emitStderr', params: ({ event }) => ({ line: event.line }) },
      ],
    },
    CALL_STARTED: { actions: 'countCallStarted' },
    CALL_FINISHED: { actions: 'countCallFinished' },
    HOST_STATE: { actions: { type: 'storeHostCopy', params: ({ event }) => ({ copy: event.copy }) } },
  },
  states: {
    init: {
      tags: 'resting',
      entry: { type: 'notifyStatus', params: { state: 'init' } },
      on: { CONNECT: 'connecting', RETRY: 'connecting', CLOSE: 'closed' },
    },
    connecting: {
      tags: 'starting',
      entry: { type: 'notifyStatus', params: { state: 'connecting' } },
      invoke: {
        id: 'connect',
        src: 'connect',
        input: ({ context, self }) => ({
          definition: context.definition,
          connector: context.connector,
          onStderr: (line: string) => self.send({ type: 'STDERR', line }),
          onListing: () => self.send({ type: 'LISTING' }),
          onHostState: (copy: HostCopyState | undefined) => self.send({ type: 'HOST_STATE', copy }),
        }),
        onDone: {
          target: 'connected',
          actions: { type: 'storeConnection', params: ({ event }) => ({ connection: event.output }) },
        },
        onError: [
          {
            guard: { type: 'isAuthError', params: ({ event }) => ({ error: event.error }) },
            target: 'needsAuth',
            actions: { type: 'recordConnectError', params: ({ event }) => ({ error: event.error }) },
          },
          {
            target: 'backoff',
            actions: { type: 'recordConnectError', params: ({ event }) => ({ error: event.error }) },
          },
        ],
      },
      after: { startupTimeout: { target: 'backoff', actions: 'recordStartupTimeout' } },
      on: { CLOSE: 'closed' },
      initial: 'opening',
      states: {
        opening: {
          description: 'transport and initialize',
          on: { LISTING: 'listing' },
        },
        listing: {
          description: 'the server answered initialize; its tools (and the rest) are being listed',
          tags: 'listing',
        },
      },
    },
    connected: {
      type: 'parallel',
      tags: 'usable',
      entry: [{ type: 'notifyStatus', params: { state: 'connected' } }, 'notifyCatalog'],
      // Every way out goes through `closing`, which closes the connection and waits for it. The watcher's
      // cleanup closes it too: the one close left when the actor is stopped abruptly (no leak).
      invoke: { id: 'watch', src: 'watch', input: ({ context }) => ({ connection: context.connection! }) },
      on: {
        TRANSPORT_CLOSED: [
          ...(['connecting', 'backoff'] as const).map((state) => ({
            guard: {
              type: 'farEndWent' as const,
              params: ({ event }: { event: { farEnd?: FarEnd } }) => ({ farEnd: event.farEnd, state }),
            },
            target: 'closing' as const,
            actions: [
              {
                type: 'recordTransportClosed' as const,
                params: ({ event }: { event: { error?: string; farEnd?: FarEnd } }) => ({
                  error: event.error,
                  farEnd: event.farEnd,
                }),
              },
              { type: 'closeInto' as const, params: { state } },
            ],
          })),
          {
            guard: 'reconnectsByItself',
            target: 'closing',
            actions: [
              { type: 'recordTransportClosed', params: ({ event }) => ({ error: event.error }) },
              { type: 'closeInto', params: { state: 'backoff' } },
            ],
          },
          {
            target: 'closing',
            actions: [
              { type: 'recordTransportClosed', params: ({ event }) => ({ error: event.error }) },
              { type: 'closeInto', params: { state: 'closed' } },
            ],
          },
        ],
        CLOSE: { target: 'closing', actions: { type: 'closeInto', params: { state: 'closed' } } },
      },
      states: {
        usage: {
          initial: 'checking',
          on: { CALL_STARTED: { target: '.active', actions: 'countCallStarted' } },
          states: {
            checking: {
              description: 'the idle timer is for lazy servers with an idle timeout only',
              always: [{ guard: 'closesWhenIdle', target: 'idle' }, { target: 'open' }],
            },
            idle: {
              description: 'nothing in flight: a lazy server closes after idleTimeout',
              after: {
                idleTimeout: {
                  guard: 'nothingInFlight',
                  target: '#server.closing',
                  actions: { type: 'closeInto', params: { state: 'closed' } },
                },
              },
              // A call that started before a reconnect may still finish here: the timer starts again.
              on: { CALL_FINISHED: { target: 'idle', reenter: true, actions: 'countCallFinished' } },
            },
            active: {
              description: 'calls in flight; the last one to finish re-arms the idle timer (lazy servers)',
              on: {
                CALL_FINISHED: [
                  { guard: 'lastCallFinishing', target: 'checking', actions: 'countCallFinished' },
                  { actions: 'countCallFinished' },
                ],
              },
            },
            open: {
              description: 'nothing in flight; eager and keep-alive servers never idle out, so no timer runs',
              on: { CALL_FINISHED: { actions: 'countCallFinished' } },
            },
          },
        },
        tools: refreshRegion('tools', 'TOOLS_CHANGED', 'refreshTools'),
        resources: refreshRegion('resources', 'RESOURCES_CHANGED', 'refreshResources'),
        prompts: refreshRegion('prompts', 'PROMPTS_CHANGED', 'refreshPrompts'),
        health: {
          initial: 'checking',
          states: {
            checking: {
              description: 'health checks are for eager and keep-alive servers with a healthCheckMs',
              always: [{ guard: 'healthChecksApply', target: 'waiting' }, { target: 'off' }],
            },
            off: { description: 'lazy servers (used or closed soon) and healthCheckMs 0: never pinged' },
            waiting: {
              description: 'a ping every healthCheck while no call runs',
              after: {
                // Running calls have their own timeouts; a ping next to them could only misjudge a busy server.
                healthCheck: [
                  { guard: 'nothingInFlight', target: 'pinging' },
                  { target: 'waiting', reenter: true },
                ],
              },
            },
            pinging: {
              description: 'a failed or unanswered ping counts as a lost transport',
              invoke: {
                id: 'ping',
                src: 'ping',
                input: ({ context }) => ({ connection: context.connection! }),
                onDone: 'waiting',
                onError: {
                  target: '#server.closing',
                  actions: [
                    { type: 'recordHealthFailure', params: ({ event }) => ({ error: event.error }) },
                    { type: 'closeInto', params: { state: 'backoff' } },
                  ],
                },
              },
              after: {
                healthTimeout: {
                  target: '#server.closing',
                  actions: ['recordHealthTimeout', { type: 'closeInto', params: { state: 'backoff' } }],
                },
              },
            },
          },
        },
      },
    },
    closing: {
      description:
        "the connection closes (a stdio server's process group ends); then closed, backoff, or connecting again when asked meanwhile",
      tags: 'closing',
      exit: 'releaseConnection',
      invoke: {
        id: 'close',
        src: 'close',
        input: ({ context }) => ({ connection: context.connection! }),
        onDone: AFTER_CLOSE,
        onError: AFTER_CLOSE,
      },
      on: {
        CLOSE: { actions: { type: 'closeInto', params: { state: 'closed' } } },
        RETRY: { actions: { type: 'closeInto', params: { state: 'connecting' } } },
        // A call arriving while an idle or closed connection closes starts it again; backoff stays backoff.
        CONNECT: {
          guard: { type: 'closesInto', params: { state: 'closed' } },
          actions: { type: 'closeInto', params: { state: 'connecting' } },
        },
      },
    },
    needsAuth: {
      description: 'CONNECT is not handled here, ensureConnected answers it with a needs-auth error',
      tags: ['failsFast', 'needsSignIn'],
      entry: { type: 'notifyStatus', params: { state: 'needsAuth' } },
      invoke: {
        id: 'watchTokens',
        src: 'watchTokens',
        input: ({ context }) => ({ definition: context.definition }),
      },
      on: { AUTHENTICATED: 'connecting', RETRY: 'connecting', CLOSE: 'closed' },
      initial: 'waiting',
      states: {
        waiting: {
          description: 'for a sign-in: SIGN_IN here, or tokens from anywhere (the store watcher)',
          on: { SIGN_IN: 'signingIn' },
        },
        signingIn: {
          description: 'one sign-in, however many ask: a SIGN_IN meanwhile waits for this one',
          tags: 'signingIn',
          entry: 'clearSignIn',
          invoke: {
            id: 'signIn',
            src: 'signIn',
            input: ({ context, event }) => ({
              definition: context.definition,
              io: (event as Extract<ServerEvent, { type: 'SIGN_IN' }>).io,
            }),
            onDone: [
              {
                guard: { type: 'signedIn', params: ({ event }) => ({ result: event.output }) },
                target: '#server.connecting',
                actions: { type: 'recordSignIn', params: ({ event }) => ({ result: event.output }) },
              },
              {
                target: 'waiting',
                actions: { type: 'recordSignIn', params: ({ event }) => ({ result: event.output }) },
              },
            ],
            onError: {
              target: 'waiting',
              actions: { type: 'recordSignInError', params: ({ event }) => ({ error: event.error }) },
            },
          },
          on: { AUTHENTICATED: { target: '#server.connecting', actions: 'recordSignedInMeanwhile' } },
        },
      },
    },
    backoff: {
      description: 'CONNECT is not handled here, callers fail fast (ensureConnected) until the delay is over',
      tags: ['failsFast', 'failed'],
      entry: [
        'countAttempt',
        'drawJitter',
        'scheduleRetry',
        { type: 'notifyStatus', params: { state: 'backoff' } },
      ],
      exit: 'clearRetry',
      after: { backoff: [{ guard: 'reconnectsByItself', target: 'connecting' }, { target: 'closed' }] },
      on: { RETRY: 'connecting', CLOSE: 'closed' },
    },
    closed: {
      tags: 'resting',
      entry: { type: 'notifyStatus', params: { state: 'closed' } },
      on: { CONNECT: 'connecting', RETRY: 'connecting' },
    },
  },
});

/** The top-level state of a server snapshot (the `connected` region details aside). */
export function serverStateOf(snapshot: { value: unknown }): ServerState {
  const { value } = snapshot;
  if (typeof value === 'string') return value as ServerState;
  // `connecting`, `connected` and `needsAuth` have sub-states; reading the key allocates nothing (called on every call).
  for (const key in value as object) return key as ServerState;
  return 'init';
}
