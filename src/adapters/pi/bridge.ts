// The only module that knows Pi's extension API. It declares the narrow slice of it we use (PiHost,
// which Pi's real ExtensionAPI satisfies structurally), bridges Pi's events to the session actor,
// registers our tools, commands and flags, and implements the HostPort effects on top of Pi.

import { randomBytes } from 'node:crypto';
import { rmdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostPort, NotifyLevel } from '../../actors/host-port.ts';
import { redactResult } from '../../actors/outbound.ts';
import { promptCommandName } from '../../actors/prompts.ts';
import { createRuntime, type Runtime } from '../../actors/session-actor.ts';
import { createCacheStore } from '../../catalog/cache.ts';
import { buildCatalog, type CatalogEntry } from '../../catalog/catalog.ts';
import { mayHaveDirectTools } from '../../catalog/exposure.ts';
import { runMcpAuthCommand, runMcpCommand } from '../../commands/mcp-command.ts';
import { LOG_FILE } from '../../config/defaults.ts';
import { agentDirFrom, loadConfig } from '../../config/load.ts';
import type { LoadedConfig } from '../../config/types.ts';
import { createDeferredInspection } from '../../inspect/deferred.ts';
import { INSPECT_FLAG, inspectTargetFrom } from '../../inspect/target.ts';
import { createLogger } from '../../logger.ts';
import type { StartRequest } from '../../machines/session.machine.ts';
import { addServerSecrets, redact } from '../../redact.ts';
import type { ToolResult } from '../../tools/executor.ts';
import {
  PROXY_TOOL_NAME,
  type ProxyParams,
  proxyToolDescription,
  proxyToolParameters,
  runProxyTool,
} from '../../tools/proxy-tool.ts';
import { TOOL_SEARCH_NAME, toolSearchParameters } from '../../tools/tool-search.ts';
import type { Connector } from '../mcp/connection-port.ts';
import { withNpxResolution } from '../mcp/npx-connector.ts';
import { defaultNpxCacheFile } from '../mcp/npx-resolver.ts';
import type { PiCustomUi } from './panel.ts';
import { promptCommand } from './prompts.ts';
import { isPiContext, piServerRequests } from './server-requests.ts';

export interface PiUi extends Partial<PiCustomUi> {
  notify(message: string, type?: 'info' | 'warning' | 'error'): void;
  setStatus(key: string, text: string | undefined): void;
}

/** Pi's dialogs (ctx.ui): undefined when the user dismissed them (Escape) or the signal aborted. */
export interface PiDialogs {
  select(title: string, options: string[], opts?: { signal?: AbortSignal }): Promise<string | undefined>;
  confirm(title: string, message: string, opts?: { signal?: AbortSignal }): Promise<boolean>;
  input(title: string, placeholder?: string, opts?: { signal?: AbortSignal }): Promise<string | undefined>;
}

export interface PiContext {
  cwd: string;
  hasUI: boolean;
  mode?: string;
  ui: PiUi & Partial<PiDialogs>;
  isProjectTrusted?(): boolean;
  isIdle?(): boolean;
  /** Pi's current model and its registry (sampling); shapes in ./sampling.ts. */
  model?: unknown;
  modelRegistry?: unknown;
}

export interface PiToolDefinition {
  name: string;
  label: string;
  description: string;
  parameters: unknown;
  defaultActive?: boolean;
  exposure?: 'direct' | 'model-only' | 'codemode' | 'deferred' | 'hidden';
  execute(
    toolCallId: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onUpdate: ((partial: ToolResult) => void) | undefined,
    ctx: unknown,
  ): Promise<ToolResult>;
}

export interface PiCommandDefinition {
  description?: string;
  getArgumentCompletions?(prefix: string): Array<{ value: string; label: string }> | null;
  handler(args: string, ctx: PiContext): Promise<void>;
}

/** The part of Pi's ExtensionAPI this extension uses. */
export interface PiHost {
  on(event: string, handler: (event: any, ctx: PiContext) => unknown): unknown;
  registerTool(tool: PiToolDefinition): void;
  registerCommand(name: string, options: PiCommandDefinition): void;
  registerFlag(
    name: string,
    options: { type: 'string' | 'boolean'; description?: string; default?: string | boolean },
  ): void;
  getFlag(name: string): boolean | string | undefined;
  getActiveTools(): string[];
  setActiveTools(names: string[]): void;
  getMcpServers?(): unknown;
  sendUserMessage?(
    content:
      | string
      | Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }>,
    options?: { deliverAs?: 'steer' | 'followUp' },
  ): void;
}

export interface PiBridgeOptions {
  connector: Connector;
  env?: Record<string, string | undefined>;
  homeDir?: string;
}

export const STATUS_KEY = 'mcp';
/** Tools of Pi's built-in MCP that must never stay active next to ours. */
const BUILTIN_MCP_TOOL =
  /^(mcp__|tool_search$|list_mcp_resources$|list_mcp_resource_templates$|read_mcp_resource$)/;

/** Wires the extension into Pi; returns the session runtime (for tests and embedding). */
export function bridgePi(pi: PiHost, options: PiBridgeOptions): Runtime {
  const env = options.env ?? process.env;
  const homeDir = options.homeDir ?? homedir();
  const agentDir = agentDirFrom(env, homeDir);
  let lastConfig: LoadedConfig | undefined;
  const logger = createLogger({ file: join(agentDir, LOG_FILE) });
  const cache = createCacheStore({ file: join(agentDir, 'mcp-cache.json'), logger });
  const tempDir = join(tmpdir(), `pi-mcp-actors-${process.pid}-${randomBytes(4).toString('hex')}`);
  let ctx: PiContext | undefined;
  const mcpToolNames = new Set<string>();
  let proxyRegistered = false;
  let lastRequest: StartRequest | undefined;

  pi.registerFlag('mcp-config', {
    type: 'string',
    description: 'Path of an MCP config file to use instead of ~/.pi/agent/mcp.json',
  });
  pi.registerFlag(INSPECT_FLAG, {
    type: 'string',
    description: 'Send redacted actor inspection events to ws://127.0.0.1:PORT/... or a .jsonl file',
  });
  const inspection = createDeferredInspection();

  const load = (request: StartRequest): LoadedConfig => {
    const flag = pi.getFlag('mcp-config');
    lastConfig = loadConfig({
      agentDir,
      cwd: request.cwd,
      homeDir,
      env,
      projectTrusted: request.projectTrusted,
      ...(typeof flag === 'string' && flag ? { configPath: flag } : {}),
      ...(pi.getMcpServers ? { piServers: pi.getMcpServers() } : {}),
    });
    addServerSecrets(lastConfig.servers);
    return lastConfig;
  };

  /** The one registration of an MCP tool: first time, again when it changed, and `withdrawn` (hidden). */
  const registerMcpTool = (entry: CatalogEntry, active: boolean, withdrawn = false) => {
    mcpToolNames.add(entry.name);
    pi.registerTool({
      ...(withdrawn ? { exposure: 'hidden' as const } : {}),
      name: entry.name,
      label: `${entry.server}: ${entry.tool}`,
      description: entry.description || `${entry.tool} (MCP server ${entry.server})`,
      parameters: entry.inputSchema,
      defaultActive: active,
      execute: (_id, params, signal, onUpdate, toolCtx) => {
        // The server may ask the user something during this call: its dialogs go to this context.
        if (isPiContext(toolCtx)) ctx = toolCtx;
        return runtime.callTool(entry.name, params ?? {}, signal, onUpdate);
      },
    });
  };

  const registerToolSearch = (description: string) => {
    pi.registerTool({
      name: TOOL_SEARCH_NAME,
      label: 'ToolSearch',
      description,
      parameters: toolSearchParameters,
      execute: (_id, params, signal) => runtime.toolSearch(String(params?.query ?? ''), signal),
    });
  };

  const host: HostPort = {
    registerTool: (entry) => registerMcpTool(entry, entry.exposure === 'direct'),
    withdrawTool: (entry) => registerMcpTool(entry, false, true),
    registerPrompt: (server, prompt) =>
      pi.registerCommand(
        promptCommandName(server, prompt.name),
        promptCommand(server, prompt, {
          runtime,
          tell,
          send: (content, commandCtx) =>
            pi.sendUserMessage?.(
              content,
              commandCtx.isIdle?.() === false ? { deliverAs: 'followUp' } : undefined,
            ),
        }),
      ),
    registerToolSearch,
    setActiveMcpTools(names) {
      const keep = pi.getActiveTools().filter((n) => !mcpToolNames.has(n) && !BUILTIN_MCP_TOOL.test(n));
      pi.setActiveTools([...new Set([...keep, TOOL_SEARCH_NAME, ...names])]);
    },
    setStatus: (text) => safely(() => ctx?.ui.setStatus(STATUS_KEY, text)),
    notify: (message, level) => safely(() => tell(ctx, message, level)),
  };

  const serverRequests = piServerRequests(() => ctx);
  const runtime: Runtime = createRuntime({
    host,
    connector: withNpxResolution(options.connector, defaultNpxCacheFile(agentDir)),
    loadConfig: load,
    cache,
    logger,
    inspect: inspection.inspect,
    // Created by the first file written into it (spilled output, blobs); removed at shutdown.
    tempDir,
    serverRequests: serverRequests.forServer,
  });

  registerDirectToolsFromCache();

  pi.registerCommand('mcp', {
    description:
      'MCP servers: status, <server>, tools [server], prompts [server], reconnect [server], enable|disable <server>',
    getArgumentCompletions: (prefix) =>
      ['status', 'tools', 'prompts', 'reconnect', 'enable', 'disable']
        .filter((c) => c.startsWith(prefix))
        .map((c) => ({ value: c, label: c })),
    handler: async (args, commandCtx) => {
      ctx = commandCtx;
      if (args.trim() === '' && (await openPanel(commandCtx))) return;
      const text = await runMcpCommand(args, runtime).catch((e: unknown) => `/mcp failed: ${String(e)}`);
      tell(commandCtx, text, 'info');
    },
  });
  const mcpAuth = async (args: string, commandCtx: PiContext) => {
    ctx = commandCtx;
    tell(commandCtx, runMcpAuthCommand(args, runtime), 'info');
  };
  pi.registerCommand('mcp-auth', {
    description: 'Authenticate an MCP server that answered 401, then reconnect it',
    handler: mcpAuth,
  });

  pi.on('session_start', async (event: { reason?: string }, eventCtx) => {
    ctx = eventCtx;
    await attachInspection().catch((e: unknown) => logger.warn(`inspection: ${String(e)}`));
    lastRequest = {
      cwd: eventCtx.cwd,
      projectTrusted: eventCtx.isProjectTrusted ? eventCtx.isProjectTrusted() : false,
      ...(event?.reason ? { reason: event.reason } : {}),
    };
    const request = lastRequest;
    serverRequests.newSession();
    await guarded('session_start', () => runtime.start(request));
    if (lastConfig?.settings.proxyTool && !proxyRegistered) {
      proxyRegistered = true;
      pi.registerTool({
        name: PROXY_TOOL_NAME,
        label: 'MCP gateway',
        description: proxyToolDescription,
        parameters: proxyToolParameters,
        execute: (_id, params, signal) =>
          runProxyTool(runtime, params as ProxyParams, signal).then(redactResult),
      });
    }
  });
  // Another extension registered or removed an MCP server (pi.registerMcpServer): we connect those
  // too, so the session starts over (a new generation) with Pi's new list.
  pi.on('mcp_servers_change', async () => {
    const request = lastRequest;
    if (request) await guarded('mcp_servers_change', () => runtime.start(request));
  });
  pi.on('turn_end', (_event, eventCtx) => {
    ctx = eventCtx;
    safely(() => runtime.actor.send({ type: 'TURN_END' }));
  });
  pi.on('session_shutdown', async () => {
    await guarded('session_shutdown', () => runtime.stop());
    removeIfEmpty(tempDir);
    await inspection.dispose();
  });

  return runtime;

  /** Direct tools exist before the first prompt: registered at load from config + cache. */
  function registerDirectToolsFromCache() {
    safely(() => {
      const config = load({ cwd: process.cwd(), projectTrusted: false });
      const env = config.settings.directToolsEnv;
      if (!config.servers.some((d) => mayHaveDirectTools(d, env))) return;
      cache.read();
      const catalog = buildCatalog(
        config.servers.map((definition) => ({ definition, ...cache.validEntry(definition) })),
        { toolPrefix: config.settings.toolPrefix, ...(env ? { directToolsEnv: env } : {}) },
      );
      for (const entry of catalog.entries) if (entry.exposure === 'direct') registerMcpTool(entry, true);
    });
  }

  /** The live panel in Pi's TUI; false where Pi has none (print, JSON, RPC): /mcp prints text there. */
  async function openPanel(commandCtx: PiContext): Promise<boolean> {
    const ui = commandCtx.ui;
    if (commandCtx.mode !== 'tui' || !ui.custom) return false;
    const custom: PiCustomUi = { custom: ui.custom.bind(ui) };
    const { showMcpPanel } = await import('./panel.ts');
    const outcome = await showMcpPanel(custom, runtime).catch((error: unknown) => {
      logger.error(`/mcp panel failed: ${String(error)}`);
      return undefined;
    });
    if (outcome?.kind === 'signIn') await mcpAuth(outcome.server, commandCtx);
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
    await import('../../inspect/inspector.ts').then(({ createInspection }) =>
      inspection.attach(createInspection(target, { onError: (m) => logger.warn(`inspection: ${m}`) })),
    );
  }

  async function guarded(what: string, fn: () => Promise<void>) {
    try {
      await fn();
    } catch (error) {
      logger.error(`${what} failed: ${String(error)}`);
      safely(() => tell(ctx, `MCP: ${what} failed: ${String(error)}`, 'error'));
    }
  }

  function safely(fn: () => void) {
    try {
      fn();
    } catch (error) {
      logger.error(String(error));
    }
  }
}

/** Spilled files stay for the model to read during the session; an unused folder does not linger. */
function removeIfEmpty(dir: string) {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (files the model may still want) or never created.
  }
}

/** Shows text to the user: a notification where Pi has UI, stdout in print mode, nothing in JSON mode. */
function tell(ctx: PiContext | undefined, raw: string, level: NotifyLevel) {
  if (!ctx) return;
  const text = redact(raw);
  if (ctx.hasUI) ctx.ui.notify(text, level);
  else if (ctx.mode === 'print') process.stdout.write(`${text}\n`);
}
