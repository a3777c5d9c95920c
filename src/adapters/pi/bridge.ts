// Bridges Pi's events (the narrow slice of Pi's API declared in ./pi-types.ts) to the session runtime,
// registers our tools, commands and flags, and implements the HostPort effects on top of Pi.
//
// Start-up cost is Pi's: before the first model request only the config and the metadata cache are
// read (once) and ToolSearch and the tools are registered; from the start record, not even that. This
// module keeps no state that the lazy halves share (the redaction and the log live in ./full-start.ts),
// so the bundle's start module can hold it whole. Where the current session is on its way to a started
// runtime is one value, `phase` (./start-phase.ts); every way into the runtime goes through ready().
// The runtime (machines, actors, executor, search, npx
// resolver) is ./session-runtime.ts, imported after that request is on its way, or at the first tool
// call or /mcp, whichever comes first; the MCP SDK follows it in the background.

import { randomBytes } from 'node:crypto';
import { rmdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionStartup } from '../../actors/describe-session.ts';
import type { HostPort, NotifyLevel } from '../../actors/host-port.ts';
import { promptCommandName } from '../../actors/prompt-command-name.ts';
import type { RegisteredTools } from '../../actors/registered-tools.ts';
import type { Runtime } from '../../actors/session-actor.ts';
import { type Clock, unrefClock } from '../../actors/unref-clock.ts';
import type { CacheStore } from '../../catalog/cache.ts';
import type { CatalogEntry } from '../../catalog/catalog.ts';
import { agentDirFrom } from '../../config/agent-dir.ts';
import { CACHE_FILE_NAME, LOG_FILE } from '../../config/defaults.ts';
import { readFileFromDisk } from '../../config/read-file.ts';
import type { LoadedConfig } from '../../config/types.ts';
import { createDeferredInspection } from '../../inspect/deferred.ts';
import { INSPECT_FLAG, inspectTargetFrom } from '../../inspect/target.ts';
import type { Logger } from '../../logger.ts';
import type { StartRequest } from '../../machines/session.machine.ts';
import type { SecretValues } from '../../redact/index.ts';
import { plainText } from '../../terminal-text.ts';
import type { ToolResult } from '../../tools/executor.ts';
import type { ProxyParams } from '../../tools/proxy-tool.ts';
import { TOOL_SEARCH_NAME, toolSearchParameters } from '../../tools/tool-search.ts';
import type { Connector } from '../mcp/connection-port.ts';
import type { PiCustomUi } from './panel.ts';
import { piTrustIsExplicit } from './pi-trust.ts';
import { isPiContext, type PiContext, type PiHost } from './pi-types.ts';
import { promptCommand } from './prompts.ts';
import {
  closed,
  isCurrent,
  next,
  type StartEvent,
  type StartPhase,
  WAKE_AFTER_MS,
  type Wake,
  wakeOf,
} from './start-phase.ts';
import {
  createStartRecords,
  recordingInputs,
  START_RECORD_FILE_NAME,
  type StartInputs,
  startKey,
} from './start-record.ts';
import { terminalSafeHost } from './terminal-ui.ts';
import { codemodeReachesTools, PI_CODEMODE_TOOL, piToolModel, wantsCodemode } from './tool-model.ts';

export interface PiBridgeOptions {
  connector: Connector;
  /** Loads the connector's code ahead of the first connect, in the background (index.ts: the MCP SDK). */
  preloadConnector?: () => Promise<unknown>;
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

export const STATUS_KEY = 'mcp';
/** Tools of Pi's built-in MCP that must never stay active next to ours. */
const BUILTIN_MCP_TOOL =
  /^(mcp__|tool_search$|list_mcp_resources$|list_mcp_resource_templates$|read_mcp_resource$)/;

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
  const tempDir = join(tmpdir(), `pi-mcp-actors-${process.pid}-${randomBytes(4).toString('hex')}`);
  /** The Pi context of the latest event, tool call or command: where dialogs and notices go. */
  let ctx: PiContext | undefined;
  /** ToolSearch's description as Pi has it: registering the same one again is skipped. */
  let registeredDescription: string | undefined;
  /** The current session on its way to a started runtime; changed only by dispatch. */
  let phase: StartPhase = closed;
  // The phase's wake is the only timer of Pi's start, armed and cleared here as the phase asks. It runs
  // on the runtime's own XState clock (unref'd: it never keeps Pi alive; a test's SimulatedClock drives
  // both), not as an XState `after`, because XState must stay off the way to the first model request.
  const alarm = wakeAlarm(clock, () => void ready().catch(() => undefined));
  const dispatch = (event: StartEvent) => {
    phase = next(phase, event);
    alarm.follow(wakeOf(phase));
  };
  const configOf = () => (phase.kind === 'closed' ? undefined : phase.config);
  /** Project servers (consent keys) the user denied in this Pi process: not asked again until restart. */
  const deniedConsents = new Set<string>();

  pi.registerFlag('mcp-config', {
    type: 'string',
    description: 'Path of an MCP config file to use instead of ~/.pi/agent/mcp.json',
  });
  pi.registerFlag(INSPECT_FLAG, {
    type: 'string',
    description: 'Send redacted actor inspection events to ws://127.0.0.1:PORT/... or a .jsonl file',
  });
  const inspection = createDeferredInspection();

  const configPathFlag = () => {
    const flag = pi.getFlag('mcp-config');
    return typeof flag === 'string' && flag ? flag : undefined;
  };
  const startKeyOf = (request: StartRequest) => {
    const configPath = configPathFlag();
    return startKey({
      cwd: request.cwd,
      homeDir,
      projectTrusted: request.projectTrusted,
      ...(request.askConsent ? { askConsent: true } : {}),
      ...(configPath ? { configPath } : {}),
      ...(pi.getMcpServers ? { piServers: pi.getMcpServers() } : {}),
    });
  };

  /** ./full-start.ts with the log and the cache store (the runtime shares them). */
  const fullStart = lazily(async (): Promise<FullStart> => {
    const module = await import('./full-start.ts');
    // The session's known secrets: made here, once, and handed to the log, the runtime and the inspector.
    const secrets = new module.SecretValues();
    const logger = module.createLogger({ file: join(agentDir, LOG_FILE), known: secrets });
    const cache = module.createCacheStore({ file: cacheFile, logger });
    // What Pi has of ours: the start path and the runtime register through it (HostPort.registry).
    // Nothing of ours is registered before this module loads, so none is needed before.
    return { ...module, secrets, logger, cache, registry: new module.RegisteredTools() };
  });
  const loadFullStart = fullStart.get;
  /** The log file is written by the logger of ./full-start.ts, which redacts (loaded on first use). */
  const log = (level: 'warn' | 'error', text: string) =>
    void loadFullStart().then(
      (loaded) => loaded.logger[level](text),
      () => undefined,
    );
  /** Shows text to the user through the one redaction: at once once it is loaded, else when it is. */
  const tell = (target: PiContext | undefined, raw: string, level: NotifyLevel) => {
    if (!target) return;
    const loaded = fullStart.made();
    if (loaded) show(target, loaded.secrets.redact(raw), level);
    else
      void loadFullStart().then(
        (loaded) => show(target, loaded.secrets.redact(raw), level),
        () => undefined,
      );
  };

  /** Reads the config, and says what it read (for the start record); ./full-start.ts is loaded first. */
  const load = (request: StartRequest): { config: LoadedConfig; inputs: StartInputs | undefined } => {
    const loaded = fullStart.made();
    if (!loaded) throw new Error('the config loader is not loaded yet');
    const { loadConfig, secrets, readProjectConsent } = loaded;
    const configPath = configPathFlag();
    const texts = phase.kind === 'closed' ? undefined : phase.texts;
    const seen = recordingInputs(
      env,
      texts ? (path) => (texts.has(path) ? texts.get(path) : readFileFromDisk(path)) : readFileFromDisk,
    );
    const config = loadConfig({
      agentDir,
      cwd: request.cwd,
      homeDir,
      env: seen.env,
      readFile: seen.readFile,
      projectTrusted: request.projectTrusted,
      // Pi trusted the folder without asking: project servers need the user's own consent.
      ...(request.askConsent
        ? { projectConsent: readProjectConsent(agentDir, request.cwd, seen.readFile) }
        : {}),
      ...(configPath ? { configPath } : {}),
      ...(pi.getMcpServers ? { piServers: pi.getMcpServers() } : {}),
    });
    dispatch({ type: 'loaded', config });
    secrets.addDefinitions(config.servers);
    return { config, inputs: seen.inputs() };
  };

  /** Registers an MCP tool with Pi (the registry decided it must), or withdraws it (hidden). */
  const registerMcpTool = (entry: CatalogEntry, active: boolean, withdrawn = false) => {
    const server = configOf()?.servers.find((s) => s.name === entry.server);
    pi.registerTool({
      name: entry.name,
      label: `${entry.server}: ${entry.tool}`,
      description: entry.description || `${entry.tool} (MCP server ${entry.server})`,
      parameters: entry.inputSchema,
      defaultActive: active,
      ...piToolModel(entry, server),
      // A tool the server no longer offers stays registered (Pi cannot unregister) but unreachable.
      ...(withdrawn ? { exposure: 'hidden' as const } : {}),
      execute: (_id, params, signal, onUpdate, toolCtx) => {
        // The server may ask the user something during this call: its dialogs go to this context.
        if (isPiContext(toolCtx)) ctx = toolCtx;
        return withRuntime(async (runtime) =>
          (await runtimeModule()).callWithAutoAuth(
            runtime,
            ctx,
            () => runtime.callTool(entry.name, params ?? {}, signal, onUpdate),
            signal,
          ),
        );
      },
    });
  };

  const registerToolSearch = (description: string) => {
    if (registeredDescription === description) return;
    registeredDescription = description;
    pi.registerTool({
      name: TOOL_SEARCH_NAME,
      label: 'ToolSearch',
      description,
      parameters: toolSearchParameters,
      // It may load any MCP tool; Pi uses this to know the call reaches tools (docs/extensions.md).
      reachesTools: () => 'all',
      execute: (_id, params, signal, _onUpdate, toolCtx) => {
        if (isPiContext(toolCtx)) ctx = toolCtx;
        return withRuntime(async (runtime) =>
          (await runtimeModule()).searchWithAutoAuth(
            runtime,
            ctx,
            () => runtime.toolSearch(String(params?.query ?? ''), signal),
            signal,
          ),
        );
      },
    });
  };

  // Pi lists the commands it knew when its editor was set up; a prompt command registered later (its
  // server connected) appears in `/` autocomplete once the list is rebuilt, which stacking a provider
  // does. The provider stacked is Pi's own, unchanged: once per batch of registrations.
  let refreshQueued = false;
  const refreshSlashCommands = () => {
    if (refreshQueued) return;
    refreshQueued = true;
    queueMicrotask(() => {
      refreshQueued = false;
      safely(() => {
        if (ctx?.hasUI) ctx.ui.addAutocompleteProvider?.((current) => current);
      });
    });
  };

  const host: HostPort = {
    registerTool: (entry) => registerMcpTool(entry, entry.exposure === 'direct'),
    withdrawTool: (entry) => registerMcpTool(entry, false, true),
    // Pi's codemode scripts call tools by name: every tool must exist in Pi then.
    registersEveryTool: () => {
      const config = configOf();
      return config !== undefined && codemodeReachesTools(config.servers, pi.getActiveTools());
    },
    registerPrompt: (server, prompt) => {
      pi.registerCommand(
        promptCommandName(server, prompt.name),
        promptCommand(server, prompt, {
          prompt: (s, n, a) => ready().then((rt) => rt.prompt(s, n, a)),
          tell,
          send: (content, commandCtx) =>
            pi.sendUserMessage?.(
              content,
              commandCtx.isIdle?.() === false ? { deliverAs: 'followUp' } : undefined,
            ),
        }),
      );
      refreshSlashCommands();
    },
    registerToolSearch,
    setActiveMcpTools(names) {
      const ours = fullStart.made()?.registry;
      const keep = pi.getActiveTools().filter((n) => !ours?.has(n) && !BUILTIN_MCP_TOOL.test(n));
      const config = configOf();
      const codemode = config && wantsCodemode(config.servers) ? [PI_CODEMODE_TOOL] : [];
      pi.setActiveTools([...new Set([...keep, TOOL_SEARCH_NAME, ...codemode, ...names])]);
    },
    setStatus: (text) => safely(() => ctx?.ui.setStatus(STATUS_KEY, text)),
    notify: (message, level) => safely(() => tell(ctx, message, level)),
  };

  const runtimeModule = () => import('./session-runtime.ts');
  const piRuntime = lazily(async () => {
    const { cache, logger, registry, secrets } = await loadFullStart();
    await attachInspection().catch((e: unknown) => log('warn', `inspection: ${String(e)}`));
    const { createPiRuntime } = await runtimeModule();
    return createPiRuntime({
      host: { ...host, registry },
      connector: options.connector,
      agentDir,
      currentContext: () => ctx,
      loadConfig: (r) => load(r).config,
      readSession: (r) => {
        const read = isCurrent(phase, r) && phase.kind !== 'closed' ? phase.startup : undefined;
        if (read) dispatch({ type: 'startup_taken' });
        return read;
      },
      cache,
      logger,
      secrets,
      inspect: inspection.inspect,
      clock,
      // Created by the first file written into it (spilled output, blobs); removed at shutdown.
      tempDir,
    });
  });
  const runtime = () => piRuntime.get().then((made) => made.runtime);
  const proxyTool = lazily(registerProxyTool);

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
      // Off the critical path, one after the other: the search index, then the MCP SDK.
      // A session that has ended starts no import: one in progress would hold Pi's exit.
      const open = () => isCurrent(phase, request);
      setImmediate(() => {
        if (!open()) return;
        void runtimeModule()
          .then(({ warmUp }) => warmUp(rt))
          .then(() => (open() ? options.preloadConnector?.() : undefined))
          .catch((e: unknown) => log('warn', `warm-up: ${String(e)}`));
      });
      return rt;
    });
    dispatch({ type: 'start', runtime: started });
    return started;
  }

  /** The session starts over with the same request (a new generation of the runtime's session). */
  async function restart() {
    dispatch({ type: 'restart' });
    await ready().catch(() => undefined);
  }

  /** Runs `fn` on the started runtime; a runtime that cannot load becomes a failed tool result. */
  async function withRuntime(fn: (runtime: Runtime) => Promise<ToolResult>): Promise<ToolResult> {
    try {
      return await fn(await ready());
    } catch (error) {
      log('error', `MCP runtime failed: ${String(error)}`);
      return {
        content: [{ type: 'text', text: `MCP is unavailable in this session: ${String(error)}` }],
        details: {},
        isError: true,
      };
    }
  }

  async function command(commandCtx: PiContext, name: string, run: (rt: Runtime) => Promise<string>) {
    ctx = commandCtx;
    const text = await ready()
      .then(run)
      .catch((e: unknown) => `/${name} failed: ${String(e)}`);
    tell(commandCtx, text, 'info');
  }

  pi.registerCommand('mcp', {
    description:
      'MCP servers: status, <server>, tools [server], prompts [server], reconnect [server], enable|disable <server>, allow <server>|--all',
    getArgumentCompletions: (prefix) =>
      ['status', 'tools', 'prompts', 'reconnect', 'enable', 'disable', 'allow']
        .filter((c) => c.startsWith(prefix))
        .map((c) => ({ value: c, label: c })),
    handler: async (args, commandCtx) => {
      ctx = commandCtx;
      if (args.trim() === '' && (await openPanel(commandCtx))) return;
      const allow = /^allow(?:\s+(.*))?$/s.exec(args.trim());
      if (allow) return allowProjectServers(commandCtx, allow[1]?.trim() ?? '');
      await command(commandCtx, 'mcp', async (rt) => (await runtimeModule()).runMcpCommand(args, rt));
    },
  });
  const mcpAuth = (args: string, commandCtx: PiContext) =>
    command(commandCtx, 'mcp-auth', async (rt) =>
      (await runtimeModule()).runAuthCommand(args, rt, commandCtx),
    );
  pi.registerCommand('mcp-auth', {
    description: 'Sign in to an MCP server (OAuth), or retry one that answered 401; lists those that need it',
    handler: mcpAuth,
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
    const key = startKeyOf(current);
    // Inputs unchanged since a start that needed nothing else: its ToolSearch is all the request needs.
    const remembered = pi.getActiveTools().includes(PI_CODEMODE_TOOL)
      ? undefined
      : safelyReturn(() => startRecords.match(key, env, Date.now()));
    if (remembered) {
      dispatch({ type: 'session_start', request: current, from: 'record', texts: remembered.texts });
      safely(() => {
        registerToolSearch(remembered.description);
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
    if (loaded?.config.pending && (await settleConsent(eventCtx, current, loaded.config, started))) {
      if (!isCurrent(phase, current)) return;
      loaded = safelyReturn(() => load(current));
    }
    const seenCache = loaded && startRecords.seeCache(loaded.config.servers.map((d) => d.name));
    const read = loaded && safelyReturn(() => readSession(loaded.config, cache));
    let description: string | undefined;
    if (read) {
      dispatch({ type: 'read', startup: read });
      description = safelyReturn(() => registerSession(read, started));
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
      inputs && seenCache && registeredAs !== undefined && startNeedsOnlyToolSearch(read)
        ? () => startRecords.save(key, inputs, seenCache, registeredAs)
        : undefined;
    dispatch({ type: 'declared', ...(saveRecord ? { saveRecord } : {}) });
  });
  // A model request is coming: the runtime loads once it has been sent, not while Pi prepares it.
  pi.on('agent_start', () => dispatch({ type: 'agent_start' }));
  pi.on('before_provider_request', () => {
    const save = phase.kind === 'closed' ? undefined : phase.saveRecord;
    dispatch({ type: 'provider_request' });
    if (save) setImmediate(() => void save());
    return undefined;
  });
  // Another extension registered or removed an MCP server (pi.registerMcpServer): we connect those
  // too, so the session starts over (a new generation) with Pi's new list.
  pi.on('mcp_servers_change', async () => {
    if (phase.kind !== 'closed') await restart();
  });
  pi.on('turn_end', (_event, eventCtx) => {
    ctx = eventCtx;
    safely(() => piRuntime.made()?.runtime.actor.send({ type: 'TURN_END' }));
  });
  pi.on('session_shutdown', async () => {
    // A runtime that was never started has nothing to close (its stop returns at once); one still
    // loading will not start.
    const rt = piRuntime.made()?.runtime;
    dispatch({ type: 'session_shutdown' });
    if (rt) await guarded('session_shutdown', () => rt.stop());
    removeIfEmpty(tempDir);
    await inspection.dispose();
  });

  return {
    runtime: () => ready(),
    startedFrom: () => phase.from,
  };

  /**
   * What the first model request declares: ToolSearch and the direct tools, and the narrowed active set,
   * from config + cache, through the same redaction as the runtime's registrations (which then find
   * them done).
   */
  /** Returns ToolSearch's description as registered. */
  function registerSession(
    { config, catalog, description }: SessionStartup,
    { redactingHost, reportConfigDiagnostics, logger, registry, secrets }: FullStart,
  ): string | undefined {
    const outbound = redactingHost(host, secrets);
    reportConfigDiagnostics(config, logger, outbound.notify);
    outbound.registerToolSearch(description);
    // Pi rebuilds its whole tool registry on every registration, so only what the first request needs is
    // registered now: the direct tools, and every tool when codemode scripts can call them. The runtime
    // registers the deferred rest once the request is on its way (or at the first tool call).
    const everyTool = codemodeReachesTools(config.servers, pi.getActiveTools());
    for (const entry of catalog.entries)
      if ((everyTool || entry.exposure === 'direct') && registry.add(entry)) outbound.registerTool(entry);
    const direct = catalog.entries.filter((entry) => entry.exposure === 'direct');
    outbound.setActiveMcpTools(direct.map((entry) => entry.name));
    return registeredDescription;
  }

  /**
   * Whether this start, which had nothing to connect, can be remembered: nothing but ToolSearch was
   * registered and nothing was said (a start that registered direct tools, the gateway or codemode's tools, or
   * told the user something, runs in full every time).
   */
  function startNeedsOnlyToolSearch(read: SessionStartup): boolean {
    const { config, catalog } = read;
    return (
      !config.settings.proxyTool &&
      config.diagnostics.every((d) => d.level === 'info') &&
      catalog.entries.every((entry) => entry.exposure !== 'direct') &&
      !codemodeReachesTools(config.servers, pi.getActiveTools())
    );
  }

  /** The `mcp` gateway (settings.proxyTool), registered once per Pi process when a session asks for it. */
  async function registerProxyTool() {
    const { redactResult, secrets } = await loadFullStart();
    const proxy = await import('../../tools/proxy-tool.ts');
    pi.registerTool({
      name: proxy.PROXY_TOOL_NAME,
      label: 'MCP gateway',
      description: proxy.proxyToolDescription,
      parameters: proxy.proxyToolParameters,
      execute: (_id, params, signal, _onUpdate, toolCtx) => {
        if (isPiContext(toolCtx)) ctx = toolCtx;
        return withRuntime(async (runtime) =>
          (await runtimeModule()).callWithAutoAuth(
            runtime,
            ctx,
            () =>
              proxy
                .runProxyTool(runtime, params as ProxyParams, signal)
                .then((r) => redactResult(r, secrets)),
            signal,
          ),
        );
      },
    });
  }

  /**
   * Servers of project files the user has not allowed: in Pi's terminal UI the user is asked now, before
   * anything of the session connects; elsewhere nothing starts and the config's warning says how to allow
   * (JSON mode prints no notifications, so the line goes to stderr there). True when one was allowed.
   */
  async function settleConsent(
    eventCtx: PiContext,
    current: StartRequest,
    config: LoadedConfig,
    { rememberConsent, secrets }: FullStart,
  ): Promise<boolean> {
    const pending = config.pending ?? [];
    const select = eventCtx.ui.select;
    if (eventCtx.mode !== 'tui' || !eventCtx.hasUI || !select) {
      const line = config.diagnostics.find((d) => d.code === 'project-server-not-allowed');
      if (eventCtx.mode === 'json' && line)
        process.stderr.write(`${secrets.redact(`MCP: ${line.message} ${line.fix ?? ''}`.trim())}\n`);
      return false;
    }
    try {
      const { askProjectConsent } = await import('./consent-dialog.ts');
      const allowed = await askProjectConsent(
        { select: select.bind(eventCtx.ui) },
        current.cwd,
        pending,
        deniedConsents,
      );
      if (allowed.length === 0) return false;
      await rememberConsent(agentDir, current.cwd, allowed);
      return true;
    } catch (error) {
      log('error', `project consent: ${String(error)}`);
      return false;
    }
  }

  /**
   * `/mcp allow <server…>|--all`: the user's consent to servers of project files waiting for it (the way
   * in RPC mode, which never asks); remembered like the dialog's answer, then the session starts over
   * with them. Without a name it lists what waits and what each would run.
   */
  async function allowProjectServers(commandCtx: PiContext, names: string, ask = false) {
    const current = phase.kind === 'closed' ? undefined : phase.request;
    const pending = configOf()?.pending ?? [];
    if (!current || pending.length === 0) {
      tell(commandCtx, 'No server of this project is waiting for consent.', 'info');
      return;
    }
    const wanted = names.split(/\s+/).filter(Boolean);
    if (wanted.length === 0) {
      tell(commandCtx, (await import('./consent-dialog.ts')).waitingList(pending), 'info');
      return;
    }
    const all = wanted.includes('--all');
    const unknown = all ? [] : wanted.filter((name) => !pending.some((p) => p.name === name));
    if (unknown.length > 0) {
      tell(
        commandCtx,
        `Not waiting for consent: ${unknown.join(', ')}. /mcp allow lists those that are.`,
        'warning',
      );
      return;
    }
    let chosen = all ? pending : pending.filter((p) => wanted.includes(p.name));
    const select = commandCtx.ui.select;
    if (ask && select) {
      // From the panel: the same question as at start, so the user sees what it runs before allowing.
      const { askProjectConsent } = await import('./consent-dialog.ts');
      chosen = await askProjectConsent(
        { select: select.bind(commandCtx.ui) },
        current.cwd,
        chosen,
        new Set(),
      );
      if (chosen.length === 0) return;
    }
    try {
      await (await loadFullStart()).rememberConsent(agentDir, current.cwd, chosen);
    } catch (error) {
      tell(commandCtx, `/mcp allow failed: ${String(error)}`, 'error');
      return;
    }
    tell(
      commandCtx,
      `Allowed for ${current.cwd}: ${chosen.map((p) => p.name).join(', ')}. Starting them.`,
      'info',
    );
    if (isCurrent(phase, current)) await restart();
  }

  /** The live panel in Pi's TUI; false where Pi has none (print, JSON, RPC): /mcp prints text there. */
  async function openPanel(commandCtx: PiContext): Promise<boolean> {
    const ui = commandCtx.ui;
    if (commandCtx.mode !== 'tui' || !ui.custom) return false;
    const custom: PiCustomUi = { custom: ui.custom.bind(ui) };
    const { showMcpPanel } = await import('./panel.ts');
    const outcome = await showMcpPanel(custom, await ready()).catch((error: unknown) => {
      log('error', `/mcp panel failed: ${String(error)}`);
      return undefined;
    });
    if (outcome?.kind === 'signIn') await mcpAuth(outcome.server, commandCtx);
    if (outcome?.kind === 'allow') await allowProjectServers(commandCtx, outcome.server, true);
    return outcome !== undefined;
  }

  async function attachInspection() {
    const setting = inspectTargetFrom(env, pi.getFlag(INSPECT_FLAG));
    if (!setting.ok) {
      inspection.attach(undefined);
      safely(() => tell(ctx, `MCP inspection is off: ${setting.error}`, 'warning'));
      return;
    }
    if (!setting.target) return inspection.attach(undefined);
    // The inspector and its WebSocket client load only when inspection is asked for.
    const target = setting.target;
    const { secrets } = await loadFullStart();
    await import('../../inspect/inspector.ts').then(({ createInspection }) =>
      inspection.attach(
        createInspection(target, { known: secrets, onError: (m) => log('warn', `inspection: ${m}`) }),
      ),
    );
  }

  async function guarded(what: string, fn: () => Promise<void>) {
    try {
      await fn();
    } catch (error) {
      log('error', `${what} failed: ${String(error)}`);
      safely(() => tell(ctx, `MCP: ${what} failed: ${String(error)}`, 'error'));
    }
  }

  function safely(fn: () => void) {
    try {
      fn();
    } catch (error) {
      log('error', String(error));
    }
  }

  function safelyReturn<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (error) {
      log('error', String(error));
      return undefined;
    }
  }
}

type FullStart = typeof import('./full-start.ts') & {
  secrets: SecretValues;
  logger: Logger;
  cache: CacheStore;
  registry: RegisteredTools;
};

/** A value made on first need, once (a module and what is built from it); `made()` once it is. */
function lazily<T>(make: () => Promise<T>): { get(): Promise<T>; made(): T | undefined } {
  let value: T | undefined;
  let making: Promise<T> | undefined;
  const get = () => {
    making ??= make().then((made) => {
      value = made;
      return made;
    });
    return making;
  };
  return { get, made: () => value };
}

/** The timer of the phase's wake: armed when the phase asks for a new wake, cleared when it asks for none. */
function wakeAlarm(clock: Clock, fire: () => void) {
  let armed: { wake: Wake; id: unknown } | undefined;
  return {
    follow(wake: Wake | undefined) {
      if (armed?.wake === wake) return;
      if (armed) clock.clearTimeout(armed.id);
      armed = wake && { wake, id: clock.setTimeout(fire, WAKE_AFTER_MS[wake.reason]) };
    },
  };
}

/** Spilled files stay for the model to read during the session; an unused folder does not linger. */
function removeIfEmpty(dir: string) {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (files the model may still want) or never created.
  }
}

/** Where text for the user goes: a notification where Pi has UI, stdout in print mode, nothing in JSON mode. */
function show(ctx: PiContext, text: string, level: NotifyLevel) {
  if (ctx.hasUI) ctx.ui.notify(text, level);
  else if (ctx.mode === 'print') process.stdout.write(`${plainText(text)}\n`);
}
