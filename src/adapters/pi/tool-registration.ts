// Our tools in Pi: ToolSearch and the MCP tools. Every call runs on the session's started runtime,
// with the sign-in /mcp-auth would run when its server waits for one (./auto-auth.ts, settings.autoAuth).

import type { Runtime } from '../../actors/session-actor.ts';
import type { CatalogEntry } from '../../catalog/catalog.ts';
import type { LoadedConfig } from '../../config/types.ts';
import type { ToolResult } from '../../tools/executor.ts';
import { TOOL_SEARCH_NAME, toolSearchParameters } from '../../tools/tool-search.ts';
import { isPiContext, type PiContext, type PiHost } from './pi-types.ts';
import { piToolModel } from './tool-model.ts';

/** Runs one call of a tool of ours; `search`: a ToolSearch (its sign-ins are those of every server it lists). */
export type RunTool = (
  toolCtx: unknown,
  signal: AbortSignal | undefined,
  call: (runtime: Runtime) => Promise<ToolResult>,
  search?: boolean,
) => Promise<ToolResult>;

export interface ToolRegistrationDeps {
  pi: PiHost;
  /** The config as last loaded for the current session. */
  config(): LoadedConfig | undefined;
  /** The Pi context of the latest event, tool call or command; a call's own context becomes it. */
  context(): PiContext | undefined;
  useContext(ctx: PiContext): void;
  ready(): Promise<Runtime>;
  autoAuth(): Promise<Pick<typeof import('./auto-auth.ts'), 'callWithAutoAuth' | 'searchWithAutoAuth'>>;
  log(level: 'error', text: string): void;
}

export interface PiTools {
  run: RunTool;
  /** Registers an MCP tool with Pi (the registry decided it must), or withdraws it (hidden). */
  registerMcpTool(entry: CatalogEntry, active: boolean, withdrawn?: boolean): void;
  /** Registers ToolSearch; the same description again is skipped. */
  registerToolSearch(description: string): void;
  /** ToolSearch's description as Pi has it. */
  registeredDescription(): string | undefined;
  /** An MCP tool registered with Pi and not withdrawn. */
  isMcpTool(name: string): boolean;
}

export function piTools(deps: ToolRegistrationDeps): PiTools {
  const { pi } = deps;
  let registeredDescription: string | undefined;
  const mcpTools = new Set<string>();

  const run: RunTool = (toolCtx, signal, call, search = false) => {
    // The server may ask the user something during this call: its dialogs go to this context.
    if (isPiContext(toolCtx)) deps.useContext(toolCtx);
    return withRuntime(async (runtime) => {
      const { callWithAutoAuth, searchWithAutoAuth } = await deps.autoAuth();
      const withAuth = search ? searchWithAutoAuth : callWithAutoAuth;
      return withAuth(runtime, deps.context(), () => call(runtime), signal);
    });
  };

  /** Runs `fn` on the started runtime; a runtime that cannot load becomes a failed tool result. */
  async function withRuntime(fn: (runtime: Runtime) => Promise<ToolResult>): Promise<ToolResult> {
    try {
      return await fn(await deps.ready());
    } catch (error) {
      deps.log('error', `MCP runtime failed: ${String(error)}`);
      return {
        content: [{ type: 'text', text: `MCP is unavailable in this session: ${String(error)}` }],
        details: {},
        isError: true,
      };
    }
  }

  return {
    run,
    registerMcpTool(entry, active, withdrawn = false) {
      if (withdrawn) mcpTools.delete(entry.name);
      else mcpTools.add(entry.name);
      const server = deps.config()?.servers.find((s) => s.name === entry.server);
      pi.registerTool({
        name: entry.name,
        label: `${entry.server}: ${entry.tool}`,
        description: entry.description || `${entry.tool} (MCP server ${entry.server})`,
        parameters: entry.inputSchema,
        defaultActive: active,
        ...piToolModel(entry, server),
        // A tool the server no longer offers stays registered (Pi cannot unregister) but unreachable.
        ...(withdrawn ? { exposure: 'hidden' as const } : {}),
        execute: (_id, params, signal, onUpdate, toolCtx) =>
          run(toolCtx, signal, (runtime) => runtime.callTool(entry.name, params ?? {}, signal, onUpdate)),
      });
    },
    registerToolSearch(description) {
      if (registeredDescription === description) return;
      registeredDescription = description;
      pi.registerTool({
        name: TOOL_SEARCH_NAME,
        label: 'ToolSearch',
        description,
        parameters: toolSearchParameters,
        // It may load any MCP tool; Pi uses this to know the call reaches tools (docs/extensions.md).
        reachesTools: () => 'all',
        execute: (_id, params, signal, _onUpdate, toolCtx) =>
          run(toolCtx, signal, (runtime) => runtime.toolSearch(String(params?.query ?? ''), signal), true),
      });
    },
    registeredDescription: () => registeredDescription,
    isMcpTool: (name) => mcpTools.has(name),
  };
}
