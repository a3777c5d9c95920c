// The session runtime: the session machine with its real effects provided, plus the two things the
// host calls into it for — ToolSearch and MCP tool calls. Host-agnostic: Pi and the CLI both use it.

import {
  type Actor,
  type AnyActorRef,
  createActor,
  fromPromise,
  type InspectionEvent,
  waitFor,
} from 'xstate';
import { lazySharedHost } from '../adapters/host/lazy-shared-host.ts';
import type { Connection, Connector, HostRequests } from '../adapters/mcp/connection-port.ts';
import { createTraceLog, type TraceLog, traceFile } from '../adapters/mcp/trace.ts';
import { useAdapterSignInSettings } from '../auth/adapter-sign-ins.ts';
import type { AuthPort, SignInIo, SignInResult } from '../auth/port.ts';
import { type CacheStore, cachedServerFromCatalog } from '../catalog/cache.ts';
import { buildCatalog, type Catalog, type CatalogEntry } from '../catalog/catalog.ts';
import { mayHaveDirectTools } from '../catalog/exposure.ts';
import { defaultSettings } from '../config/defaults.ts';
import type { LoadedConfig, Settings } from '../config/types.ts';
import type { Logger } from '../logger.ts';
import {
  type KnownCatalog,
  type LoadedSession,
  type SessionContext,
  type StartRequest,
  serverId,
  sessionMachine,
} from '../machines/session.machine.ts';
import { addServerSecrets, redact, redactKnownDeep } from '../redact.ts';
import { plainText } from '../terminal-text.ts';
import { type AskApproval, createToolApprovals } from '../tools/approval.ts';
import { executeTool, type ProgressUpdate, type ToolResult } from '../tools/executor.ts';
import { instructionsNote } from '../tools/server-instructions.ts';
import { type CallStats, createCallStats } from '../tools/stats.ts';
import { type Surface, wordsFor } from '../tools/surface-words.ts';
import { renderSearchOutcome, searchCatalog, unavailableNote } from '../tools/tool-search-answer.ts';
import { readSession, type SessionStartup, serverTools } from './describe-session.ts';
import { ensureConnected, type ServerActorRef, type ServerUnavailable } from './ensure-connected.ts';
import type { HostPort } from './host-port.ts';
import { redactingHost, redactProgress, redactResult } from './outbound.ts';
import { type PromptOutcome, RegisteredPrompts, runPrompt } from './prompts.ts';
import { EVERY_TOOL_LIMIT, RegisteredTools } from './registered-tools.ts';
import { reportConfigDiagnostics } from './report-diagnostics.ts';
import { serverLogicWith } from './server-actor.ts';
import { allowedRequests } from './server-requests.ts';
import { describeServers, statusLine } from './server-status.ts';
import { signInAndConnect } from './sign-in.ts';
import { signInFirst, type WaitingServer } from './unknown-tool.ts';
import { type Clock, unrefClock } from './unref-clock.ts';

export interface RuntimeOptions {
  host: HostPort;
  connector: Connector;
  loadConfig(request: StartRequest): LoadedConfig;
  /** A session the host has already read for this request (Pi's startup path): config and cache are read once. */
  readSession?(request: StartRequest): SessionStartup | undefined;
  cache?: CacheStore;
  logger: Logger;
  tempDir: string;
  inspect?: (event: InspectionEvent) => void;
  /** Defaults to real timers that never keep the process alive. */
  clock?: Clock;
  /** OAuth sign-in and the store the server actors watch. */
  auth?: AuthPort;
  /** How the host answers a server's requests (elicitation, sampling, roots); none: not declared. */
  serverRequests?: (server: string, settings: Settings) => HostRequests;
  /** Asks the user whether an `approveTools` call may run; none: such calls fail closed. */
  askApproval?: AskApproval;
  /** Where messages are read: Pi (slash commands, ToolSearch) or the CLI (its commands). Default Pi. */
  surface?: Surface;
  /** Start the servers of the tools a search loaded, for the call the model makes next (default true). */
  startLoadedServers?: boolean;
  /** The agent dir: with `settings.sharedHost`, servers run in the per-user host whose socket is there. */
  agentDir?: string;
}

export type SessionActor = Actor<typeof sessionMachine>;

/** What a ToolSearch learns of the servers whose tools were unknown: which failed, which still list. */
interface UnknownServers {
  failed: Map<string, ServerUnavailable>;
  listing: string[];
}

export interface Runtime {
  actor: SessionActor;
  catalog(): Catalog;
  servers(): Record<string, ServerActorRef>;
  toolSearch(query: string, signal?: AbortSignal): Promise<ToolResult>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    onUpdate?: ProgressUpdate,
  ): Promise<ToolResult>;
  /** Signs in to a server (OAuth) and connects it: the one entry point for /mcp-auth, CLI and TUI. */
  signIn(server: string, io: SignInIo): Promise<SignInResult>;
  /** Runs a server's prompt (connecting it if needed): the messages as content for a user message. */
  prompt(
    server: string,
    name: string,
    args: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<PromptOutcome>;
  /** Sends SESSION_START and resolves when the session is running (or failed to start). */
  start(request: StartRequest): Promise<void>;
  /** Sends SESSION_SHUTDOWN and resolves when every server is closed. */
  stop(): Promise<void>;
  dispose(): void;
}

/** How long a ToolSearch waits for servers whose tools are unknown before it answers without them. */
export const SEARCH_WAIT_MS = 1_000;

export function createRuntime(options: RuntimeOptions): Runtime {
  const { logger } = options;
  const clock = options.clock ?? unrefClock;
  const host = redactingHost(options.host);
  let current: { generation: number; key: unknown; catalog: Catalog } | undefined;
  const registered = new RegisteredTools();
  const prompts = new RegisteredPrompts();
  const notified = new Set<string>();
  /** `generation:server:kind`: servers whose trouble the model has been told of this session. */
  const noted = new Set<string>();
  /** `generation:server` pairs whose instructions the model has read this session. */
  const instructed = new Set<string>();
  let describedGeneration = -1;
  const words = wordsFor(options.surface);
  const approvals = createToolApprovals(options.askApproval, words);
  const surface = options.surface ? { surface: options.surface } : {};

  function catalogOf(context: SessionContext): Catalog {
    const key = catalogKey(context);
    if (current && current.generation === context.generation && sameKey(current.key, key))
      return current.catalog;
    const settings = context.config?.settings;
    const previous = current?.generation === context.generation ? current.catalog : undefined;
    const catalog = buildCatalog(serverTools(context), {
      toolPrefix: settings?.toolPrefix ?? 'server',
      ...(settings?.directToolsEnv ? { directToolsEnv: settings.directToolsEnv } : {}),
      ...(previous ? { previous } : {}),
    });
    for (const w of catalog.warnings) if (!current?.catalog.warnings.includes(w)) logger.warn(w);
    current = { generation: context.generation, key, catalog };
    return catalog;
  }

  function activeNames(context: SessionContext): string[] {
    const catalog = catalogOf(context);
    const on = (e: CatalogEntry | undefined) => e !== undefined && !context.disabled.includes(e.server);
    const direct = catalog.entries.filter((e) => e.exposure === 'direct' && on(e)).map((e) => e.name);
    const activated = context.activated.filter((n) => on(catalog.byName.get(n)));
    return [...new Set([...direct, ...activated])];
  }

  // The children object keeps its identity until a child is spawned or stopped: calls reuse the map.
  let refsOf: { children: unknown; refs: Record<string, ServerActorRef> } | undefined;
  function childRefs(): Record<string, ServerActorRef> {
    const children = actor.getSnapshot().children as Record<string, AnyActorRef | undefined>;
    if (refsOf?.children === children) return refsOf.refs;
    const refs: Record<string, ServerActorRef> = {};
    for (const [id, ref] of Object.entries(children)) {
      if (ref && id.startsWith('server:')) refs[id.slice('server:'.length)] = ref as ServerActorRef;
    }
    refsOf = { children, refs };
    return refs;
  }

  // Every connection this runtime opened and has not closed yet, however its actor ended: shutdown
  // waits for all of them, so no server process outlives the session.
  const openConnections = new Set<Connection>();
  /** Servers that answered initialize and are listing their tools now (ToolSearch waits for those briefly). */
  const listing = listingServers();
  /** Metadata-cache writes still under way: a short session waits for them before it ends. */
  let cacheWrites: Promise<void> = Promise.resolve();
  /** Call statistics (settings.captureStats), per session. */
  let stats: CallStats | undefined;
  /** The protocol trace of `trace` servers, one file per session. */
  let trace: TraceLog | undefined;
  const viaHost = options.agentDir
    ? lazySharedHost({ agentDir: options.agentDir }, options.connector)
    : undefined;
  const connector: Connector = async (definition, connectOptions) => {
    const name = definition.name;
    const { config, request } = actor.getSnapshot().context;
    const settings = config?.settings ?? defaultSettings();
    const connect = settings.sharedHost && viaHost && request ? viaHost(request.cwd) : options.connector;
    const host: HostRequests = {
      ...allowedRequests(options.serverRequests?.(name, settings) ?? {}, settings, definition),
      log: (level, text) => logger.info(`[${name}] ${level}: ${text}`),
    };
    let connection: Connection;
    try {
      connection = await connect(definition, {
        ...connectOptions,
        host,
        ...(trace ? { trace } : {}),
        onListing: () => listing.start(name),
      });
    } finally {
      listing.end(name);
    }
    openConnections.add(connection);
    const close = connection.close.bind(connection);
    connection.close = () => close().finally(() => openConnections.delete(connection));
    return connection;
  };

  const logic = sessionMachine.provide({
    actors: {
      server: serverLogicWith(options.auth?.store),
      loadSession: fromPromise<LoadedSession, { request: StartRequest; generation: number }>(
        async ({ input }) => {
          const { config, cached, catalog, description } =
            options.readSession?.(input.request) ??
            readSession(
              options.loadConfig(input.request),
              options.cache,
              options.serverRequests !== undefined,
            );
          addServerSecrets(config.servers);
          approvals.reset();
          await trace?.flush();
          trace = config.servers.some((d) => d.trace)
            ? createTraceLog(
                traceFile(input.request.cwd, config.settings.trace.file),
                config.settings.trace,
                input.request.cwd,
              )
            : undefined;
          useAdapterSignInSettings(config.settings.adapterSignIns ?? {});
          const capture = config.settings.captureStats;
          await stats?.dispose();
          stats = capture
            ? createCallStats({ path: capture.path, flushDelayMs: capture.flushDelayMs })
            : undefined;
          // The same catalog serves registration when the session enters running (same config, same cache).
          current = {
            generation: input.generation,
            key: catalogKey({ config, catalogs: cached }),
            catalog,
          };
          return { config, cached, toolSearchDescription: description };
        },
      ),
      warmup: fromPromise<void, { servers: AnyActorRef[]; limit: number }>(async ({ input, signal }) => {
        const queue = [...input.servers] as ServerActorRef[];
        const worker = async () => {
          for (let ref = queue.shift(); ref; ref = queue.shift()) {
            if (signal.aborted) return;
            await ensureConnected(ref, { signal });
          }
        };
        await Promise.all(Array.from({ length: Math.min(input.limit, queue.length) }, worker));
      }),
      // Every live catalog was written when it arrived (writeCache); shutdown only waits for those writes.
      shutdown: fromPromise<void, { catalogs: Record<string, KnownCatalog>; live: string[] }>(async () => {
        const closing = [...openConnections].map((c) => c.close());
        await Promise.allSettled([...closing, cacheWrites, stats?.dispose()]);
        await trace?.flush();
      }),
    },
    actions: {
      registerTools: ({ context }) => {
        if (describedGeneration !== context.generation) {
          describedGeneration = context.generation;
          host.registerToolSearch(context.toolSearchDescription);
        }
        const { entries } = catalogOf(context);
        const every = entries.length <= EVERY_TOOL_LIMIT || host.registersEveryTool?.() === true;
        const activated = new Set(context.activated);
        const { changed, withdrawn } = registered.update(
          entries,
          (entry) => every || entry.exposure === 'direct' || activated.has(entry.name),
        );
        for (const entry of changed) host.registerTool(entry);
        for (const entry of withdrawn) host.withdrawTool?.(entry);
        for (const { server, prompt } of prompts.changed(context.catalogs))
          host.registerPrompt?.(server, prompt);
      },
      syncActiveTools: ({ context }) => host.setActiveMcpTools(activeNames(context)),
      // The action's context is already updated (a server just disabled is in `disabled`).
      publishStatus: ({ context }) => host.setStatus(statusLine(context, childRefs())),
      notifyStatus: ({ context, event }) => {
        if (event.type !== 'SERVER.STATUS' || (event.state !== 'needsAuth' && event.state !== 'backoff'))
          return;
        const key = `${context.generation}:${event.name}:${event.state}`;
        if (notified.has(key)) return;
        notified.add(key);
        const ref = childRefs()[event.name];
        const message = ref
          ? describeServers({ [event.name]: ref }, { brief: true, ...surface })
          : event.name;
        host.notify(message, event.state === 'needsAuth' ? 'warning' : 'error');
      },
      writeCache: ({ context, event }) => {
        if (event.type !== 'SERVER.CATALOG') return;
        const def = context.config?.servers.find((d) => d.name === event.name);
        if (!options.cache || !def) return;
        const written = options.cache
          // The server's lists as sent but for the secrets we know: the next session reads what this one did.
          .write({ [event.name]: redactKnownDeep(cachedServerFromCatalog(def, event.catalog)) })
          .catch((error: unknown) => {
            logger.warn(`cache write failed: ${String(error)}`);
          });
        cacheWrites = Promise.all([cacheWrites, written]).then(() => undefined);
      },
      reportLoadFailure: ({ event }) => {
        const error = (event as { error?: unknown }).error;
        logger.error(`MCP session failed to start: ${String(error)}`);
        host.notify(
          `MCP is off for this session: loading the configuration failed (${String(error)}).`,
          'error',
        );
      },
      reportDiagnostics: ({ context }) => {
        if (context.config) reportConfigDiagnostics(context.config, logger, host.notify);
      },
    },
  });

  const actor: SessionActor = createActor(logic, {
    input: { connector },
    clock,
    ...(options.inspect ? { inspect: options.inspect } : {}),
  });
  // `debug: true` servers: their stderr goes to the log as it arrives.
  const listening = new WeakSet<object>();
  actor.subscribe(() => {
    for (const [name, ref] of Object.entries(childRefs())) {
      if (listening.has(ref) || !ref.getSnapshot().context.definition.debug) continue;
      listening.add(ref);
      ref.on('stderr', (e) => logger.info(`[${name}] ${e.line}`));
    }
  });
  actor.start();

  function catalog(): Catalog {
    return catalogOf(actor.getSnapshot().context);
  }

  /** Resolves once the session has left `starting` (at once when it already has: the hot path). */
  function started(signal?: AbortSignal): Promise<unknown> {
    if (!actor.getSnapshot().matches('starting')) return Promise.resolve();
    return waitFor(actor, (s) => !s.matches('starting'), signal ? { signal } : {}).catch(() => undefined);
  }

  /** Servers that wait for a sign-in and have never listed their tools. */
  function waitingForFirstSignIn(context: SessionContext): WaitingServer[] {
    const refs = childRefs();
    return (context.config?.servers ?? [])
      .filter((d) => !context.catalogs[d.name] && refs[d.name]?.getSnapshot().matches('needsAuth'))
      .map((d) => ({
        name: d.name,
        prefix: d.toolPrefix ?? context.config?.settings.toolPrefix ?? 'server',
      }));
  }

  /**
   * Servers whose tools are not known yet (no cache, not listed) are connected and waited for: while
   * they start (bounded by their startup timeout), then at most SEARCH_WAIT_MS once they are listing
   * their tools. A ToolSearch answers from what is known then and names the servers still listing;
   * their connects go on, and their tools are registered when they arrive, for the next search.
   */
  async function waitForUnknownServers(signal?: AbortSignal): Promise<UnknownServers> {
    const context = actor.getSnapshot().context;
    const refs = childRefs();
    const unknown = serverTools(context)
      .filter((s) => !s.tools && refs[s.definition.name])
      .map((s) => s.definition.name);
    const failed = new Map<string, ServerUnavailable>();
    const done = new Set<string>();
    if (unknown.length === 0) return { failed, listing: [] };
    const settled = unknown.map(async (name) => {
      const result = await ensureConnected(refs[name]!, { ...(signal ? { signal } : {}), ...surface });
      if (!result.ok && result.error.kind !== 'aborted') failed.set(name, result.error);
      done.add(name);
    });
    await Promise.all(unknown.map((name, i) => Promise.race([settled[i], listing.started(name)])));
    if (done.size < unknown.length) {
      let timer: unknown;
      const bound = new Promise<void>((resolve) => {
        timer = clock.setTimeout(resolve, SEARCH_WAIT_MS);
      });
      await Promise.race([Promise.all(settled), bound]);
      clock.clearTimeout(timer);
    }
    return { failed, listing: unknown.filter((name) => !done.has(name)) };
  }

  /**
   * The model calls what it just loaded on its next turn, seconds away: its servers start now. A start
   * that is never used ends with the idle timeout; a server that needs auth or waits in backoff stays so.
   */
  function startInBackground(entries: CatalogEntry[]) {
    if (options.startLoadedServers === false) return;
    const refs = childRefs();
    for (const server of new Set(entries.map((e) => e.server))) {
      const ref = refs[server];
      if (ref) void ensureConnected(ref);
    }
  }

  return {
    actor,
    catalog,
    servers: childRefs,
    signIn(server, io) {
      const def = actor.getSnapshot().context.config?.servers.find((d) => d.name === server);
      return signInAndConnect(options.auth, def, childRefs()[server], io, options.surface);
    },
    async toolSearch(query, signal) {
      await started(signal);
      const { failed, listing: stillListing } = await waitForUnknownServers(signal);
      const context = actor.getSnapshot().context;
      const outcome = searchCatalog(
        catalogOf(context),
        query,
        new Set(activeNames(context)),
        (e) => !context.disabled.includes(e.server),
      );
      // server:<name> of a configured server without tools says why, in place of "no server named".
      const asked = outcome.kind === 'unknown-server' ? outcome.server : undefined;
      const configured = asked !== undefined && context.config?.servers.some((d) => d.name === asked);
      if (asked !== undefined && configured && !context.disabled.includes(asked)) {
        const reason = failed.get(asked);
        if (reason) noted.add(`${context.generation}:${asked}:${reason.kind}`);
        const text = reason ? redact(unavailableNote(reason, words)) : `Server ${asked} offers no tools.`;
        return redactResult({
          content: [{ type: 'text', text: plainText(text) }],
          details: { query, loaded: [] },
        });
      }
      // Told once per session and kind of trouble: the model keeps what it read.
      const notes = stillListing.map(
        (name) =>
          `Note: MCP server "${name}" is still starting (listing its tools); search again in a moment.`,
      );
      for (const [name, reason] of failed) {
        const key = `${context.generation}:${name}:${reason.kind}`;
        if (noted.has(key)) continue;
        noted.add(key);
        notes.push(`Note: ${redact(unavailableNote(reason, words))}`);
      }
      if (outcome.kind === 'loaded') {
        actor.send({ type: 'ACTIVATE', names: outcome.entries.map((e) => e.name) });
        startInBackground(outcome.entries);
      }
      const loaded = outcome.kind === 'loaded' ? outcome.entries.map(entrySummary) : [];
      for (const server of new Set(loaded.map((e) => e.server))) {
        const key = `${context.generation}:${server}`;
        const instructions = context.catalogs[server]?.instructions;
        if (instructed.has(key) || !instructions) continue;
        instructed.add(key);
        const note = instructionsNote(server, instructions);
        if (note) notes.push(note);
      }
      return redactResult({
        content: [{ type: 'text', text: plainText(renderSearchOutcome(query, outcome, notes)) }],
        details: { query, loaded },
      });
    },
    async callTool(name, args, signal, onUpdate) {
      await started(signal);
      const context = actor.getSnapshot().context;
      const result = await executeTool(
        {
          entry: (n) => catalogOf(context).byName.get(n),
          names: () =>
            catalogOf(context)
              .entries.filter((e) => !context.disabled.includes(e.server))
              .map((e) => e.name),
          server: (s) => (context.disabled.includes(s) ? undefined : childRefs()[s]),
          settings: context.config?.settings ?? defaultSettings(),
          tempDir: options.tempDir,
          clock,
          ...(stats ? { stats } : {}),
          ...surface,
          unknownTool: (n) => signInFirst(n, waitingForFirstSignIn(context), options.surface),
          approve: (entry, callArgs, signal) => {
            const definition = context.config?.servers.find((d) => d.name === entry.server);
            return definition
              ? approvals.check(definition, entry, callArgs, signal)
              : Promise.resolve(undefined);
          },
        },
        name,
        args,
        signal,
        redactProgress(onUpdate),
      );
      return redactResult(result);
    },
    async prompt(server, name, args, signal) {
      await started(signal);
      const context = actor.getSnapshot().context;
      const ref = context.disabled.includes(server) ? undefined : childRefs()[server];
      const outcome = await runPrompt(ref, server, name, args, {
        tempDir: options.tempDir,
        ...(signal ? { signal } : {}),
      });
      return outcome.ok
        ? { ok: true, content: redactResult({ content: outcome.content, details: {} }).content }
        : outcome;
    },
    async start(request) {
      actor.send({ type: 'SESSION_START', request });
      await waitFor(actor, (s) => !s.matches('starting'));
      // Direct tools must exist for the first model request: wait (bounded by each server's startup
      // timeout) for servers that should have direct tools but are not in the cache yet.
      const context = actor.getSnapshot().context;
      const refs = childRefs();
      const waiting = (context.config?.servers ?? []).filter(
        (d) =>
          !context.catalogs[d.name] &&
          refs[d.name] &&
          mayHaveDirectTools(d, context.config!.settings.directToolsEnv),
      );
      await Promise.all(waiting.map((d) => ensureConnected(refs[d.name]!)));
    },
    async stop() {
      if (actor.getSnapshot().matches('idle')) return;
      actor.send({ type: 'SESSION_SHUTDOWN' });
      await waitFor(actor, (s) => s.matches('idle'));
    },
    dispose() {
      actor.stop();
    },
  };
}

/** Which servers are listing their tools right now, and a promise for when one starts to. */
function listingServers() {
  const now = new Set<string>();
  const waiting = new Map<string, Array<() => void>>();
  return {
    start(name: string) {
      now.add(name);
      for (const wake of waiting.get(name) ?? []) wake();
      waiting.delete(name);
    },
    end(name: string) {
      now.delete(name);
    },
    started(name: string): Promise<void> {
      if (now.has(name)) return Promise.resolve();
      return new Promise((resolve) => waiting.set(name, [...(waiting.get(name) ?? []), resolve]));
    },
  };
}

function entrySummary(e: CatalogEntry) {
  return { name: e.name, server: e.server, tool: e.tool };
}

function catalogKey(context: Pick<SessionContext, 'config' | 'catalogs'>): unknown[] {
  return [context.config, context.catalogs];
}

function sameKey(a: unknown, b: unknown): boolean {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => v === b[i]);
}

export { serverId };
