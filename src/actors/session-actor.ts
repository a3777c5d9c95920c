// The session runtime: the session machine with its real effects provided, and the entry points the
// host calls (ToolSearch and MCP tool calls run as use cases in src/session/, over the one deps object
// built here). Host-agnostic: Pi and the CLI both use it.
// What a session knows lives in its actors: the machine's context (what the user and the model were
// told, the approvals), the server actors (connections), the recorders (cache writes, trace, stats).
// What this closure keeps besides: memos keyed by the objects they derive from and the host's
// registrations. Which servers are listing their tools, and which connections are closing, the server
// actors' states say (tags `listing`, `closing`).

import {
  type Actor,
  type AnyActorRef,
  createActor,
  fromPromise,
  type InspectionEvent,
  waitFor,
} from 'xstate';
import { lazySharedHost } from '../adapters/host/lazy-shared-host.ts';
import { isStoreOf } from '../auth/default-store.ts';
import type { AuthPort, SignInIo, SignInResult } from '../auth/port.ts';
import type { CacheStore } from '../catalog/cache.ts';
import { buildCatalog, type Catalog } from '../catalog/catalog.ts';
import { describeServers, statusLine } from '../commands/server-status.ts';
import {
  type ConfigDiff,
  configFiles,
  describeBadSave,
  describeDiff,
  diffConfig,
  isEmptyDiff,
} from '../config/config-diff.ts';
import { defaultSettings } from '../config/defaults.ts';
import { LastGoodConfig, type LiveRead } from '../config/last-good.ts';
import type { LoadedConfig, PendingServer, ServerDefinition, Settings } from '../config/types.ts';
import type { InspectionRelay } from '../inspect/deferred.ts';
import type { Logger } from '../logger.ts';
import type { Connector } from '../machines/server-types.ts';
import {
  type LoadedSession,
  type SessionContext,
  type ShutdownInput,
  type StartRequest,
  serverId,
  sessionMachine,
} from '../machines/session.machine.ts';
import type { Clock } from '../ports/clock.ts';
import type { SharedCopy } from '../ports/host.ts';
import type { HostRequests } from '../ports/mcp.ts';
import type { Surface } from '../ports/surface-words.ts';
import type { SecretValues } from '../redact/index.ts';
import { activeNames } from '../session/active-tools.ts';
import { callTool, removedToolNote } from '../session/call-tool.ts';
import {
  awaitsDirectTools,
  describeSession,
  readSession,
  type SessionStartup,
  serverTools,
} from '../session/describe-session.ts';
import { ensureConnected, type ServerActorRef } from '../session/ensure-connected.ts';
import { generationGuard } from '../session/generation.ts';
import type { HostPort } from '../session/host-port.ts';
import { redactingHost, redactResult } from '../session/outbound.ts';
import {
  completePromptArgument,
  type PromptOutcome,
  RegisteredPrompts,
  runPrompt,
} from '../session/prompts.ts';
import { EVERY_TOOL_LIMIT, RegisteredTools } from '../session/registered-tools.ts';
import { reportConfigDiagnostics } from '../session/report-diagnostics.ts';
import { searchTools } from '../session/search-tools.ts';
import { allowedRequests } from '../session/server-requests.ts';
import { type SessionDeps, untilStarted } from '../session/session-deps.ts';
import type { AskApproval } from '../tools/approval.ts';
import type { ProgressUpdate, ToolResult } from '../tools/executor.ts';
import { wordsFor } from '../tools/surface-words.ts';
import { configWatchLogic, filesSignature, someFileEmpty } from './config-watch.ts';
import { drainServerLogic } from './drain-server.ts';
import { serverLogicWith } from './server-actor.ts';
import { serversClosedLogic } from './servers-closed.ts';
import { sessionRecorders } from './session-recorders.ts';
import { signInAndConnect } from './sign-in.ts';
import { unrefClock } from './unref-clock.ts';

export interface RuntimeOptions {
  host: HostPort;
  connector: Connector;
  /** `live`, when given, is the only way the load may read files (a live edit: src/config/last-good.ts). */
  loadConfig(request: StartRequest, live?: LiveRead): LoadedConfig;
  /**
   * Reads the config files again for a running session (an edit), through `live` when given (a broken
   * file is read as its last good version, a broken setting keeps its last good value); default loadConfig.
   */
  reloadConfig?(request: StartRequest, live?: LiveRead): LoadedConfig;
  /**
   * A config edit brought project servers that wait for the user's consent (new or changed entries):
   * asks where the host can (Pi's terminal UI); true when one was allowed, and the config is read again.
   */
  askConsent?(pending: PendingServer[], request: StartRequest): Promise<boolean>;
  /**
   * A session the host has already read for this request and told the config diagnostics of (Pi's
   * startup path): config and cache are read once, and the diagnostics told once.
   */
  readSession?(request: StartRequest): SessionStartup | undefined;
  cache?: CacheStore;
  logger: Logger;
  /** The runtime's known secrets: it adds the config's, and redacts everything it lets out with them. */
  secrets: SecretValues;
  tempDir: string;
  inspect?: (event: InspectionEvent) => void;
  /** Where the shared host's actors' inspection events go: this session's inspection, while it is on. */
  inspectionRelay?: InspectionRelay;
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
  /**
   * Connect eager, keep-alive and uncached servers as the session starts (default true). The CLI says
   * no: each command connects only the servers it needs.
   */
  warmStart?: boolean;
  /** The agent dir: with `settings.sharedHost`, servers run in the per-user host whose socket is there. */
  agentDir?: string;
  /** Told once when the shared host cannot be used and servers run in the session (default: a warning). */
  onHostUnavailable?: (text: string) => void;
}

export type SessionActor = Actor<typeof sessionMachine>;

export interface Runtime {
  actor: SessionActor;
  /** The known secrets this runtime redacts with (/mcp, the CLI and the host's texts use them too). */
  readonly secrets: SecretValues;
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
  /** The server's suggestions for a prompt argument (typed so far); `connect`: start the server if needed. */
  completePrompt(
    server: string,
    name: string,
    argument: { name: string; value: string },
    context: Record<string, string>,
    options: { connect: boolean; signal?: AbortSignal },
  ): Promise<string[]>;
  /** Why a tool name is gone, when a config edit removed its server this session (Pi answers "not found"). */
  removedToolNote?(name: string): string | undefined;
  /** Sends SESSION_START and resolves when the session is running (or failed to start). */
  start(request: StartRequest): Promise<void>;
  /** Sends SESSION_SHUTDOWN and resolves when every server is closed. */
  stop(): Promise<void>;
  dispose(): void;
  /**
   * Asks the shared host (only if one runs) which of this session's servers it runs already, for
   * /mcp and the panel; knownSharedCopies() is the last answer.
   */
  sharedCopies?(): Promise<Record<string, SharedCopy>>;
  knownSharedCopies?(): Record<string, SharedCopy>;
}

export function createRuntime(options: RuntimeOptions): Runtime {
  const { logger, secrets } = options;
  const clock = options.clock ?? unrefClock;
  const host = redactingHost(options.host, secrets);
  const registered = options.host.registry ?? new RegisteredTools();
  const prompts = new RegisteredPrompts();
  const recorders = sessionRecorders(options.cache, logger, secrets);
  // The tokens the sign-in store reads or writes are secrets of this runtime too.
  const stopSharingSignIns = options.auth?.store.shareSecrets(secrets);
  /** The latest catalog built for a session's config (one config per generation) and what it was built from. */
  const built = new WeakMap<LoadedConfig, { catalogs: SessionContext['catalogs']; catalog: Catalog }>();
  /** The catalog a config edit replaced: the next one keeps its names. */
  let beforeEdit: Catalog | undefined;
  /** The server refs of a children object (it keeps its identity until a child is spawned or stopped). */
  const refsOf = new WeakMap<object, Record<string, ServerActorRef>>();
  /** The config files' sizes and times at the last check: a turn's end reads them again only if they changed. */
  let checkedFiles: string | undefined;
  let readSignature: string | undefined;
  /** The config files' last good versions: what a bad save breaks keeps them. */
  const lastGood = new LastGoodConfig();
  /** Tools of servers a config edit removed this session: a call is told so, plainly. */
  const removedTools = new Map<string, { server: string; file: string }>();
  /** ToolSearch's description as last registered by this runtime. */
  let shownDescription: string | undefined;
  const words = wordsFor(options.surface);
  const surface = options.surface ? { surface: options.surface } : {};

  /** The session's catalog, rebuilt when its known tools change (names stay stable within a session). */
  function catalogOf(context: SessionContext): Catalog {
    const config = context.config;
    const last = config && built.get(config);
    if (last && last.catalogs === context.catalogs) return last.catalog;
    const settings = config?.settings;
    const catalog = buildCatalog(serverTools(context), {
      toolPrefix: settings?.toolPrefix ?? 'server',
      ...(settings?.directToolsEnv ? { directToolsEnv: settings.directToolsEnv } : {}),
      ...(last ? { previous: last.catalog } : beforeEdit ? { previous: beforeEdit } : {}),
    });
    for (const w of catalog.warnings) if (!last?.catalog.warnings.includes(w)) logger.warn(w);
    if (config) built.set(config, { catalogs: context.catalogs, catalog });
    return catalog;
  }

  function childRefs(): Record<string, ServerActorRef> {
    const children = actor.getSnapshot().children as Record<string, AnyActorRef | undefined>;
    let refs = refsOf.get(children);
    if (refs) return refs;
    refs = {};
    for (const [id, ref] of Object.entries(children)) {
      if (ref && id.startsWith('server:')) refs[id.slice('server:'.length)] = ref as ServerActorRef;
    }
    refsOf.set(children, refs);
    return refs;
  }

  /** A running recorder of the session (none while it is not open). */
  const recorder = (id: 'trace' | 'stats') => actor.getSnapshot().children[id] as AnyActorRef | undefined;

  // The host signs in with its agent dir's store: a runtime given another one (tests) runs its servers
  // itself, or its sign-ins would never reach the host, nor the host's refreshes its needs-auth watchers.
  const viaHost =
    options.agentDir && (!options.auth || isStoreOf(options.auth.store, options.agentDir))
      ? lazySharedHost(
          {
            agentDir: options.agentDir,
            ...(options.inspectionRelay ? { inspection: options.inspectionRelay } : {}),
            ...(options.surface ? { surface: options.surface } : {}),
          },
          options.connector,
          options.onHostUnavailable ??
            ((text) => {
              logger.warn(text);
              host.notify(text, 'warning');
            }),
        )
      : undefined;
  /** What this session answers for a server (part of its shared instance's key). */
  const hostRequestsOf = (definition: ServerDefinition, settings: Settings): HostRequests => ({
    ...allowedRequests(options.serverRequests?.(definition.name, settings) ?? {}, settings, definition),
    log: (level, text) => logger.info(`[${definition.name}] ${level}: ${text}`),
  });

  /** The last answer of sharedCopies(): which servers the shared host runs for this session's keys. */
  let knownCopies: Record<string, SharedCopy> = {};
  async function sharedCopies(): Promise<Record<string, SharedCopy>> {
    const { config, request } = actor.getSnapshot().context;
    if (!config?.settings.sharedHost || !viaHost || !request || !options.agentDir) {
      knownCopies = {};
      return knownCopies;
    }
    const { sharedCopiesOf } = await import('../adapters/host/shared-copies.ts');
    const servers = config.servers.map((definition) => ({
      definition,
      host: hostRequestsOf(definition, config.settings),
    }));
    const copies = await sharedCopiesOf(options.agentDir, request.cwd, servers).catch(() => ({}));
    // A late answer for a config an edit or a new session has since replaced is not the known one.
    if (actor.getSnapshot().context.config === config) knownCopies = copies;
    return copies;
  }

  const connector: Connector = async (definition, connectOptions) => {
    const { config, request } = actor.getSnapshot().context;
    const settings = config?.settings ?? defaultSettings();
    const connect = settings.sharedHost && viaHost && request ? viaHost(request.cwd) : options.connector;
    const host = hostRequestsOf(definition, settings);
    const trace = recorders.traceOf(recorder('trace'));
    return connect(definition, { ...connectOptions, host, secrets, ...(trace ? { trace } : {}) });
  };

  // The steps of a session's start, in order: read config and cache (or take the host's reading),
  // know its secrets, apply its sign-in settings.
  function readStartup(request: StartRequest): { startup: SessionStartup; told: boolean } {
    const read = options.readSession?.(request);
    if (read) return { startup: read, told: true };
    // Read just now: the files' sizes and times are the baseline a turn's end compares with. (A
    // reading the host made earlier has none: the first check reads the files again.)
    const config = options.loadConfig(request);
    readSignature = filesSignature(configFiles(config));
    return { startup: readSession(config, options.cache, options.serverRequests !== undefined), told: false };
  }

  function beginSession({ config, cached, catalog }: SessionStartup) {
    checkedFiles = readSignature;
    readSignature = undefined;
    removedTools.clear();
    beforeEdit = undefined;
    lastGood.start(config);
    secrets.addDefinitions(config.servers);
    options.auth?.store.useAdapterSignInSettings(config.settings.adapterSignIns ?? {});
    // The same catalog serves registration when the session enters running (same config, same cache).
    built.set(config, { catalogs: cached, catalog });
  }

  /**
   * Reads the config files again if they changed (`force`: the watcher saw them change) and tells the
   * session what to apply: CONFIG_REJECTED for a bad save (what it broke keeps its last good version),
   * CONFIG_CHANGED with the difference the rest of the edit makes, nothing when nothing that runs changed.
   */
  function checkConfig(context: SessionContext, force = false) {
    const { config: last, request, generation } = context;
    if (!last || !request) return;
    const signature = filesSignature(configFiles(last));
    if (!force && signature === checkedFiles) return;
    // Being written (truncated, not yet written): its write is a change the watcher sees again.
    if (someFileEmpty(configFiles(last))) return;
    checkedFiles = signature;
    const reload = options.reloadConfig ?? options.loadConfig;
    const { config: read, errors } = lastGood.reread(last, (live) => reload(request, live));
    const configError = errors.length > 0 ? describeBadSave(errors) : undefined;
    // Told once (the chart drops a message it holds already), and it stays until the files are good.
    if (configError) actor.send({ type: 'CONFIG_REJECTED', generation, message: configError });
    const { diff, config } = diffConfig(last, read);
    const waitingBefore = new Set((last.pending ?? []).map((p) => p.key));
    const waiting = (config.pending ?? []).filter((p) => !waitingBefore.has(p.key));
    const fixed = context.configError !== undefined && configError === undefined;
    if (isEmptyDiff(diff) && waiting.length === 0 && !fixed) {
      const watched = actor.getSnapshot().children.configWatch as AnyActorRef | undefined;
      watched?.send({ type: 'WATCH', files: configFiles(read) });
      return;
    }
    secrets.addDefinitions(config.servers);
    const fresh = new Set([...diff.added, ...diff.changed].map((d) => d.name));
    const cached =
      fresh.size > 0 ? readSession(config, options.cache, options.serverRequests !== undefined).cached : {};
    const catalogs: SessionContext['catalogs'] = {};
    for (const d of config.servers) {
      // A changed server keeps its last known tools until its new process lists them.
      const known = fresh.has(d.name)
        ? (cached[d.name] ?? context.catalogs[d.name])
        : context.catalogs[d.name];
      if (known) catalogs[d.name] = known;
    }
    const before = catalogOf(context);
    beforeEdit = before;
    for (const entry of before.entries) {
      const gone = diff.removed.find((d) => d.name === entry.server);
      if (gone) removedTools.set(entry.name, { server: gone.name, file: gone.source.file });
    }
    for (const d of config.servers) {
      for (const [name, removed] of removedTools) if (removed.server === d.name) removedTools.delete(name);
    }
    const notes = [describeDiff(diff)];
    for (const p of waiting)
      notes.push(`${p.name} (${p.source.file}) waits for your consent: /mcp allow ${p.name}`);
    if (waiting.length > 0 && options.askConsent) {
      void options
        .askConsent(waiting, request)
        .then((allowed) => allowed && actor.send({ type: 'CONFIG_CHECK', force: true }))
        .catch((error: unknown) => logger.warn(`project consent: ${String(error)}`));
    }
    actor.send({
      type: 'CONFIG_CHANGED',
      generation,
      config,
      added: diff.added.map((d) => d.name),
      removed: diff.removed.map((d) => d.name),
      changed: diff.changed.map((d) => d.name),
      catalogs,
      // Rebuilt only when the set of servers or a server's own description changed: a restart or a
      // setting keeps every byte the model reads (prompt caches).
      toolSearchDescription: summariesChanged(last, diff)
        ? describeSession(config, catalogs).description
        : context.toolSearchDescription,
      note: fixed && isEmptyDiff(diff) ? 'config fixed: nothing changed' : notes.join('; '),
      ...(configError ? { configError } : {}),
    });
  }

  const logic = sessionMachine.provide({
    actors: {
      server: serverLogicWith(options.auth),
      loadSession: fromPromise<LoadedSession, { request: StartRequest; generation: number }>(
        async ({ input }) => {
          const { startup, told } = readStartup(input.request);
          beginSession(startup);
          const { config, cached, description } = startup;
          return { config, cached, toolSearchDescription: description, diagnosticsTold: told };
        },
      ),
      warmup: fromPromise<void, { servers: AnyActorRef[]; limit: number }>(async ({ input, signal }) => {
        if (options.warmStart === false) return;
        const queue = [...input.servers] as ServerActorRef[];
        const worker = async () => {
          for (let ref = queue.shift(); ref; ref = queue.shift()) {
            if (signal.aborted) return;
            await ensureConnected(ref, { signal });
          }
        };
        await Promise.all(Array.from({ length: Math.min(input.limit, queue.length) }, worker));
      }),
      serversClosed: serversClosedLogic,
      configWatch: configWatchLogic,
      drainServer: drainServerLogic,
      shutdown: fromPromise<void, ShutdownInput>(({ input }) => recorders.flush(input.recorders)),
      cacheWriter: recorders.cacheWriter,
      trace: recorders.trace,
      stats: recorders.stats,
    },
    actions: {
      registerToolSearch: ({ context }) => {
        shownDescription = context.toolSearchDescription;
        host.registerToolSearch(context.toolSearchDescription);
      },
      updateToolSearch: ({ context }) => {
        if (context.toolSearchDescription === shownDescription) return;
        shownDescription = context.toolSearchDescription;
        host.registerToolSearch(context.toolSearchDescription);
      },
      checkConfig: ({ context, event }) => checkConfig(context, event.type === 'CONFIG_CHECK' && event.force),
      notifyConfig: ({ context, event }) => {
        if (event.type === 'CONFIG_REJECTED') {
          logger.warn(`MCP ${event.message}`);
          host.notify(`MCP ${event.message}`, 'error');
        } else if (event.type === 'CONFIG_CHANGED' && context.configNote) {
          logger.info(`MCP ${context.configNote}`);
          host.notify(`MCP ${context.configNote}`, 'info');
        }
      },
      registerTools: ({ context }) => {
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
      syncActiveTools: ({ context }) => host.setActiveMcpTools(activeNames(context, catalogOf(context))),
      // The action's context is already updated (a server just disabled is in `disabled`).
      publishStatus: ({ context }) => host.setStatus(statusLine(context, childRefs())),
      // The machine calls this once per server and kind of trouble in a session.
      notifyStatus: ({ event }) => {
        if (event.type !== 'SERVER.STATUS') return;
        const ref = childRefs()[event.name];
        const message = ref
          ? describeServers({ [event.name]: ref }, { brief: true, secrets, ...surface })
          : event.name;
        host.notify(message, event.state === 'needsAuth' ? 'warning' : 'error');
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
        if (context.config && !context.diagnosticsTold)
          reportConfigDiagnostics(context.config, logger, host.notify);
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

  // What the session's use cases (ToolSearch, a call) take from this runtime, built once.
  const deps: SessionDeps = {
    snapshot: () => actor.getSnapshot(),
    send: (event) => actor.send(event),
    until: (done, signal) =>
      done(actor.getSnapshot())
        ? Promise.resolve()
        : waitFor(actor, done, signal ? { signal } : {}).then(
            () => undefined,
            () => undefined,
          ),
    catalogOf,
    servers: childRefs,
    removedTool: (name) => removedTools.get(name),
    stats: () => recorders.statsOf(recorder('stats')),
    askApproval: options.askApproval,
    secrets,
    words,
    surface: options.surface,
    clock,
    tempDir: options.tempDir,
    startLoadedServers: options.startLoadedServers !== false,
  };

  function removedNote(name: string): string | undefined {
    const removed = removedTools.get(name);
    return removed ? removedToolNote(name, removed) : undefined;
  }

  return {
    actor,
    secrets,
    catalog,
    removedToolNote: removedNote,
    servers: childRefs,
    signIn(server, io) {
      const def = actor.getSnapshot().context.config?.servers.find((d) => d.name === server);
      return signInAndConnect(options.auth, def, childRefs()[server], io, secrets, options.surface);
    },
    toolSearch: (query, signal) => searchTools(deps, query, signal),
    callTool: (name, args, signal, onUpdate) => callTool(deps, { name, args, signal, onUpdate }),
    async prompt(server, name, args, signal) {
      await untilStarted(deps, signal);
      const context = actor.getSnapshot().context;
      const ref = context.disabled.includes(server) ? undefined : childRefs()[server];
      const outcome = await runPrompt(ref, server, name, args, {
        tempDir: options.tempDir,
        ...(signal ? { signal } : {}),
      });
      return outcome.ok
        ? { ok: true, content: redactResult({ content: outcome.content, details: {} }, secrets).content }
        : outcome;
    },
    async completePrompt(server, name, argument, context, completeOptions) {
      const context_ = actor.getSnapshot().context;
      const ref = context_.disabled.includes(server) ? undefined : childRefs()[server];
      const values = await completePromptArgument(ref, name, argument, context, completeOptions);
      return values.map((value) => secrets.redactKnown(value));
    },
    async start(request) {
      const previous = generationGuard(() => actor.getSnapshot().context.generation);
      actor.send({ type: 'SESSION_START', request });
      // An open session stops first (its servers closed, its recorders flushed); a failed load ends idle.
      await waitFor(actor, (s) => s.matches('idle') || (s.matches({ open: 'running' }) && !previous()));
      // Direct tools must exist for the first model request: the one wait for them (Pi's start too
      // comes here), bounded by each server's startup timeout.
      const { config, catalogs } = actor.getSnapshot().context;
      const refs = childRefs();
      const waiting = config ? awaitsDirectTools(config, catalogs).filter((d) => refs[d.name]) : [];
      await Promise.all(waiting.map((d) => ensureConnected(refs[d.name]!)));
    },
    async stop() {
      if (actor.getSnapshot().matches('idle')) return;
      actor.send({ type: 'SESSION_SHUTDOWN' });
      await waitFor(actor, (s) => s.matches('idle'));
    },
    dispose() {
      actor.stop();
      stopSharingSignIns?.();
    },
    sharedCopies,
    knownSharedCopies: () => knownCopies,
  };
}

/** Whether an edit changes what ToolSearch's description says of the servers (their set, their own lines). */
function summariesChanged(last: LoadedConfig, diff: ConfigDiff): boolean {
  if (diff.added.length > 0 || diff.removed.length > 0) return true;
  return diff.changed.some((d) => last.servers.find((o) => o.name === d.name)?.description !== d.description);
}

export { serverId };
