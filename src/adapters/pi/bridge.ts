// Wires Pi's events (the narrow slice of Pi's API declared in ./pi-types.ts) to Pi's start phase and
// the session runtime. The jobs it wires live beside it, one per file: our tools (./tool-registration.ts),
// the HostPort on Pi (./pi-host-port.ts), what the first request declares (./first-request.ts), the
// slash commands (./slash-commands.ts), the project consent (./project-consent-flow.ts).
//
// Start-up cost is Pi's: before the first model request only the config and the metadata cache are
// read (once) and ToolSearch and the tools are registered; from the start record, not even that. This
// module keeps no state that the lazy halves share (the redaction and the log live in ./full-start.ts),
// so the bundle's start module can hold it whole. Where the current session is on its way to a started
// runtime is one value, `phase` (./start-phase.ts); every way into the runtime goes through ready().
// The runtime (machines, actors, executor, search, npx resolver) is ./session-runtime.ts, imported
// after that request is on its way, or at the first tool call or /mcp, whichever comes first; what its
// connects use (the shared host's client, the MCP SDK for servers in the session) follows it in the
// background.

import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Runtime } from '../../actors/session-actor.ts';
import { unrefClock } from '../../actors/unref-clock.ts';
import { agentDirFrom } from '../../config/agent-dir.ts';
import { CACHE_FILE_NAME } from '../../config/defaults.ts';
import { runsServersInSession, usesSharedHost } from '../../config/share-defaults.ts';
import type { LoadedConfig } from '../../config/types.ts';
import type { Connector } from '../../machines/server-types.ts';
import type { StartRequest } from '../../machines/session.machine.ts';
import type { Clock } from '../../ports/clock.ts';
import { plainText } from '../../terminal-text.ts';
import { failureGuards } from './failure-guards.ts';
import { declareFirstRequest, startNeedsOnlyToolSearch } from './first-request.ts';
import { fullStartLoader } from './full-start-loader.ts';
import { piInspection } from './inspection-setup.ts';
import { lazily } from './lazily.ts';
import { notices } from './notices.ts';
import { piHostPort } from './pi-host-port.ts';
import { piTrustIsExplicit } from './pi-trust.ts';
import type { PiContext, PiHost } from './pi-types.ts';
import type { LeftServer } from './servers-stay-notice.ts';
import { loadSessionConfig, registerConfigFlag, startKeyOf } from './session-config.ts';
import { registerSlashCommands } from './slash-commands.ts';
import { removeIfEmpty, spillDirPath } from './spill-dir.ts';
import { closed, isCurrent, next, type StartEvent, type StartPhase, wakeOf } from './start-phase.ts';
import { createStartRecords, START_RECORD_FILE_NAME } from './start-record.ts';
import { terminalSafeHost } from './terminal-ui.ts';
import { PI_CODEMODE_TOOL } from './tool-model.ts';
import { piTools } from './tool-registration.ts';
import { loadToolsCalledUnloaded } from './unloaded-tool-calls.ts';
import { wakeAlarm } from './wake-alarm.ts';

const loadHostClient = () => import('../host/shared-connector.ts');

export interface PiBridgeOptions {
  connector: Connector;
  /** Loads the in-session connector's code ahead of its first connect, in the background (index.ts: the MCP SDK). */
  preloadConnector?: () => Promise<unknown>;
  /** Loads the shared host's client ahead of the first connect through it (default: its module). */
  preloadHostClient?: () => Promise<unknown>;
  env?: Record<string, string | undefined>;
  homeDir?: string;
  /** The timers of Pi's start and of the runtime: real ones, unref'd, unless a test gives XState's. */
  clock?: Clock;
}

/** What bridgePi hands back (for tests and embedding). */
export interface PiBridge {
  /** The session runtime, created and started with the current session on first need. */
  runtime(): Promise<Runtime>;
  /** How the current session prepared its first request: from the start record, or by loading. */
  startedFrom(): 'record' | 'load' | undefined;
}

/** The servers a session used through the shared host (they stay there once it ends). */
function leftInSharedHost(runtime: Runtime): LeftServer[] {
  const left: LeftServer[] = [];
  for (const [name, ref] of Object.entries(runtime.servers())) {
    const context = ref.getSnapshot().context;
    const host = context.connection?.sharedHost;
    if (host) left.push({ name, hostPid: host.pid, idleTimeoutMs: context.definition.idleTimeoutMs });
  }
  return left;
}

/** Wires the extension into Pi. */
export function bridgePi(rawPi: PiHost, options: PiBridgeOptions): PiBridge {
  // Every context Pi hands us shows only sanitized text (./terminal-ui.ts).
  const pi = terminalSafeHost(rawPi);
  const env = options.env ?? process.env;
  const homeDir = options.homeDir ?? homedir();
  const agentDir = agentDirFrom(env, homeDir);
  const clock = options.clock ?? unrefClock;
  const cacheFile = join(agentDir, CACHE_FILE_NAME);
  const startRecords = createStartRecords(join(agentDir, START_RECORD_FILE_NAME), cacheFile);
  // Created by the first file written into it (spilled output, blobs); removed at shutdown.
  const tempDir = spillDirPath();
  /** The Pi context of the latest event, tool call or command: where dialogs and notices go. */
  let ctx: PiContext | undefined;
  const context = () => ctx;
  const useContext = (current: PiContext) => {
    ctx = current;
  };
  /** The current session on its way to a started runtime; changed only by dispatch. */
  let phase: StartPhase = closed;
  const alarm = wakeAlarm(clock, () => void ready().catch(() => undefined));
  const dispatch = (event: StartEvent) => {
    phase = next(phase, event);
    alarm.follow(wakeOf(phase));
  };
  // The runtime's config once it runs: a config edit applied there reaches the tools' registration too.
  const configOf = (): LoadedConfig | undefined =>
    phase.kind === 'closed'
      ? undefined
      : (piRuntime.made()?.runtime.actor.getSnapshot().context.config ?? phase.config);

  const fullStart = fullStartLoader(agentDir, cacheFile);
  const loadFullStart = fullStart.get;
  const { tell, log } = notices(fullStart);
  const { safely, safelyReturn, guarded } = failureGuards(log, (text) => tell(ctx, text, 'error'));
  registerConfigFlag(pi);
  const inspection = piInspection({
    pi,
    env,
    warn: (text) => safely(() => tell(ctx, text, 'warning')),
    log,
  });

  /** Reads the config for this session; ./full-start.ts must be loaded. */
  const load = (request: StartRequest) => {
    const loaded = fullStart.made();
    if (!loaded) throw new Error('the config loader is not loaded yet');
    const texts = phase.kind === 'closed' ? undefined : phase.texts;
    const read = loadSessionConfig(loaded, { pi, agentDir, homeDir, env, texts }, request);
    dispatch({ type: 'loaded', config: read.config });
    loaded.secrets.addDefinitions(read.config.servers);
    return read;
  };

  const runtimeModule = () => import('./session-runtime.ts');
  const tools = piTools({
    pi,
    config: configOf,
    context,
    useContext,
    ready,
    autoAuth: runtimeModule,
    log,
  });
  const host = piHostPort({
    pi,
    tools,
    config: configOf,
    registry: () => fullStart.made()?.registry,
    context,
    prompt: (s, n, a) => ready().then((rt) => rt.prompt(s, n, a)),
    completePrompt: (s, n, arg, context, options) =>
      ready().then((rt) => rt.completePrompt(s, n, arg, context, options)),
    tell,
    safely,
  });

  const piRuntime = lazily(async () => {
    const { cache, logger, registry, secrets } = await loadFullStart();
    await inspection.attach(secrets).catch((e: unknown) => log('warn', `inspection: ${String(e)}`));
    const { createPiRuntime } = await runtimeModule();
    return createPiRuntime({
      host: { ...host, registry },
      connector: options.connector,
      agentDir,
      currentContext: context,
      loadConfig: (r) => load(r).config,
      // A project entry that a config edit brought is asked about again (Pi's terminal UI), or waits.
      askConsent: async (pending, request): Promise<boolean> => {
        const config = configOf();
        return ctx && config ? settleConsent(ctx, request, { ...config, pending }) : false;
      },
      // An edit while the session runs: the files as they are now (never the start record's texts).
      reloadConfig: (r, live) => {
        const made = fullStart.made();
        if (!made) throw new Error('the config loader is not loaded yet');
        return loadSessionConfig(made, { pi, agentDir, homeDir, env, texts: undefined, live }, r).config;
      },
      readSession: (r) => {
        const read = isCurrent(phase, r) && phase.kind !== 'closed' ? phase.startup : undefined;
        if (read) dispatch({ type: 'startup_taken' });
        return read;
      },
      cache,
      logger,
      secrets,
      inspect: inspection.inspect,
      inspectionRelay: inspection.relay,
      clock,
      tempDir,
    });
  });
  const runtime = () => piRuntime.get().then((made) => made.runtime);
  /** The `mcp` gateway (settings.proxyTool), registered once per Pi process when a session asks for it. */
  const proxyTool = lazily(async () => {
    const { redactResult, secrets } = await loadFullStart();
    (await import('./register-proxy-tool.ts')).registerProxyTool(pi, tools.run, (result) =>
      redactResult(result, secrets),
    );
  });
  const consent = lazily(async () =>
    (await import('./project-consent-flow.ts')).projectConsentFlow({
      agentDir,
      loadFullStart,
      isCurrent: (request) => isCurrent(phase, request),
      restart,
      tell,
      log,
    }),
  );

  /**
   * The one way into the runtime: started with the current session, once per session (again after a
   * restart). The wake timer, a tool call, /mcp, direct tools at session_start all come here.
   */
  function ready(): Promise<Runtime> {
    if (phase.kind === 'started') return phase.runtime;
    if (phase.kind === 'closed') return runtime();
    const { request } = phase;
    const started: Promise<Runtime> = runtime().then(async (rt) => {
      if (phase.kind === 'closed') return rt; // shut down meanwhile: nothing starts
      // A newer session or a restart took over meanwhile: the runtime starts with that one.
      if (phase.kind !== 'started' || phase.runtime !== started) return ready();
      await guarded('session_start', () => rt.start(request));
      // Off the critical path, one after the other: the search index, then what the first connect needs.
      // A session that has ended starts no import: one in progress would hold Pi's exit.
      const open = () => isCurrent(phase, request);
      setImmediate(() => {
        if (!open()) return;
        void runtimeModule()
          .then(({ warmUp }) => warmUp(rt))
          .then(() => (open() ? preloadConnectors(rt) : undefined))
          .catch((e: unknown) => log('warn', `warm-up: ${String(e)}`));
      });
      return rt;
    });
    dispatch({ type: 'start', runtime: started });
    return started;
  }

  /**
   * What this session's connects will load, ahead of them: the line to the shared host for its servers
   * there, the MCP SDK for those in the session. A session whose servers all run in the host loads the
   * SDK only at the first connect of one that runs in the session after all (the host cannot be used, a
   * config edit): its load takes tens of ms of Pi's event loop, in the middle of the model's next turns.
   */
  function preloadConnectors(rt: Runtime): Promise<unknown> | undefined {
    const config = rt.actor.getSnapshot().context.config;
    if (!config) return options.preloadConnector?.();
    return Promise.all([
      usesSharedHost(config) ? (options.preloadHostClient ?? loadHostClient)() : undefined,
      runsServersInSession(config) ? options.preloadConnector?.() : undefined,
    ]);
  }

  /** The session starts over with the same request (a new generation of the runtime's session). */
  async function restart() {
    dispatch({ type: 'restart' });
    await ready().catch(() => undefined);
  }

  registerSlashCommands({
    pi,
    useContext,
    ready,
    commands: runtimeModule,
    allow: async (commandCtx, names, ask) => {
      const waiting =
        phase.kind === 'closed' ? undefined : { request: phase.request, pending: configOf()?.pending ?? [] };
      await (await consent.get()).allow(commandCtx, waiting, names, ask);
    },
    forget: async (commandCtx, names) => {
      await (await consent.get()).forget(
        commandCtx,
        phase.kind === 'closed' ? undefined : phase.request,
        names,
      );
    },
    tell,
    log,
  });

  pi.on('session_start', async (event: { reason?: string }, eventCtx) => {
    ctx = eventCtx;
    const projectTrusted = eventCtx.isProjectTrusted ? eventCtx.isProjectTrusted() : false;
    const askConsent =
      projectTrusted &&
      !safelyReturn(() => piTrustIsExplicit({ cwd: eventCtx.cwd, agentDir, homeDir, argv: process.argv }));
    const current: StartRequest = {
      cwd: eventCtx.cwd,
      projectTrusted,
      ...(askConsent ? { askConsent: true } : {}),
      ...(event?.reason ? { reason: event.reason } : {}),
    };
    piRuntime.made()?.newSession();
    const key = startKeyOf(pi, homeDir, current);
    // Inputs unchanged since a start that needed nothing else: its ToolSearch is all the request needs.
    const remembered = pi.getActiveTools().includes(PI_CODEMODE_TOOL)
      ? undefined
      : safelyReturn(() => startRecords.match(key, env, Date.now()));
    if (remembered) {
      dispatch({
        type: 'session_start',
        request: current,
        from: 'record',
        texts: remembered.texts,
        ...(remembered.sharedHost ? { sharedHost: true } : {}),
      });
      safely(() => {
        tools.registerToolSearch(remembered.description);
        host.setActiveMcpTools([]);
      });
      dispatch({ type: 'declared', ...(remembered.refresh ? { saveRecord: remembered.refresh } : {}) });
      return;
    }
    dispatch({ type: 'session_start', request: current, from: 'load' });
    const started = await loadFullStart();
    if (!isCurrent(phase, current)) return; // a newer session_start took over meanwhile
    const { readSession, cache, awaitsDirectTools } = started;
    let loaded = safelyReturn(() => load(current));
    if (loaded?.config.pending && (await settleConsent(eventCtx, current, loaded.config))) {
      if (!isCurrent(phase, current)) return;
      loaded = safelyReturn(() => load(current));
    }
    const seenCache = loaded && startRecords.seeCache(loaded.config.servers.map((d) => d.name));
    const read = loaded && safelyReturn(() => readSession(loaded.config, cache));
    let description: string | undefined;
    if (read) {
      dispatch({ type: 'read', startup: read });
      description = safelyReturn(() => {
        declareFirstRequest(read, started, host, pi.getActiveTools());
        return tools.registeredDescription();
      });
      if (read.config.settings.proxyTool)
        await proxyTool.get().catch((e: unknown) => log('error', `proxy tool: ${String(e)}`));
      if (!isCurrent(phase, current)) return;
    }
    // Direct tools must exist for the first model request: servers that should have some but are not
    // in the cache are connected now, by the runtime's start (bounded by their startup timeout).
    // Otherwise nothing waits.
    const connectNow = !read || awaitsDirectTools(read.config, read.cached).length > 0;
    if (connectNow) {
      await ready().catch(() => undefined);
      return;
    }
    const inputs = loaded?.inputs;
    const registeredAs = description;
    const saveRecord =
      inputs && seenCache && registeredAs !== undefined && startNeedsOnlyToolSearch(read, pi.getActiveTools())
        ? () => startRecords.save(key, inputs, seenCache, registeredAs, usesSharedHost(read.config))
        : undefined;
    dispatch({ type: 'declared', ...(saveRecord ? { saveRecord } : {}) });
  });
  // A model request is coming: the runtime loads once it has been sent, not while Pi prepares it.
  // What starts the host (a small module) loads as the request is prepared, so that the request,
  // once on its way, starts the host at once rather than after an import on Pi's busy thread.
  let hostStarter: Promise<typeof import('../host/spawn-host.ts')> | undefined;
  const startsHost = () =>
    phase.kind === 'declared' && (phase.config ? usesSharedHost(phase.config) : phase.sharedHost === true);
  pi.on('agent_start', () => {
    if (startsHost()) hostStarter ??= import('../host/spawn-host.ts');
    dispatch({ type: 'agent_start' });
  });
  pi.on('before_provider_request', () => {
    const save = phase.kind === 'closed' ? undefined : phase.saveRecord;
    // The first request's: the host starts while the model thinks, as a server starts at ToolSearch.
    // Queued first, so the host's process starts before the runtime's load takes Pi's thread.
    if (startsHost()) {
      hostStarter ??= import('../host/spawn-host.ts');
      setImmediate(() =>
        hostStarter!
          .then(({ startHostSoon }) => startHostSoon(agentDir))
          .catch((e: unknown) => log('warn', `starting the shared host: ${String(e)}`)),
      );
    }
    dispatch({ type: 'provider_request' });
    if (save) setImmediate(() => void save());
    return undefined;
  });
  // Another extension registered or removed an MCP server (pi.registerMcpServer): we connect those
  // too, so the session starts over (a new generation) with Pi's new list.
  pi.on('mcp_servers_change', async () => {
    if (phase.kind !== 'closed') await restart();
  });
  loadToolsCalledUnloaded(pi, tools.isMcpTool, ready, (name) =>
    piRuntime.made()?.runtime.removedToolNote?.(name),
  );
  // Turn boundaries: a config edit reaches the next model request (DESIGN.md rule 14).
  pi.on('turn_end', (_event, eventCtx) => {
    ctx = eventCtx;
    safely(() => piRuntime.made()?.runtime.actor.send({ type: 'TURN_END' }));
  });
  pi.on('before_agent_start', () => {
    safely(() => piRuntime.made()?.runtime.actor.send({ type: 'CONFIG_CHECK' }));
    return undefined;
  });
  pi.on('session_shutdown', async (event) => {
    // A runtime that was never started has nothing to close (its stop returns at once); one still
    // loading will not start.
    const rt = piRuntime.made()?.runtime;
    const left = rt ? leftInSharedHost(rt) : [];
    dispatch({ type: 'session_shutdown' });
    if (rt) await guarded('session_shutdown', () => rt.stop());
    if (left.length > 0) await guarded('session_shutdown', () => tellServersStay(left, event));
    removeIfEmpty(tempDir);
    await inspection.dispose();
  });

  /** Once per agent dir: the servers this session leaves running in the shared host, and until when. */
  async function tellServersStay(left: LeftServer[], event: unknown): Promise<void> {
    const { serversStayNotice } = await import('./servers-stay-notice.ts');
    const text = await serversStayNotice(agentDir, left, env);
    if (!text) return;
    // Quitting: Pi's screen is already closed, so the terminal gets it as a line of its own.
    const quitting = (event as { reason?: string } | undefined)?.reason === 'quit';
    if (quitting && (ctx?.mode === 'tui' || ctx?.mode === 'print'))
      process.stderr.write(`${plainText(text)}\n`);
    else tell(ctx, text, 'info');
  }

  return {
    runtime: () => ready(),
    startedFrom: () => phase.from,
  };

  /** Project servers waiting for consent at start: asked now where Pi can ask (./project-consent-flow.ts). */
  async function settleConsent(eventCtx: PiContext, current: StartRequest, config: LoadedConfig) {
    try {
      return await (await consent.get()).settleAtStart(eventCtx, current, config);
    } catch (error) {
      log('error', `project consent: ${String(error)}`);
      return false;
    }
  }
}
