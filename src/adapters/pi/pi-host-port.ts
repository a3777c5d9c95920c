// The session's HostPort on Pi: tools, prompts as slash commands, the active tool set, the status bar
// and notices.

import type { LoadedConfig } from '../../config/types.ts';
import type { HostPort, NotifyLevel } from '../../session/host-port.ts';
import { promptCommandName } from '../../session/prompt-command-name.ts';
import type { PromptOutcome } from '../../session/prompts.ts';
import type { RegisteredTools } from '../../session/registered-tools.ts';
import { TOOL_SEARCH_NAME } from '../../tools/tool-search.ts';
import type { PiContext, PiHost } from './pi-types.ts';
import { type PromptCommandDeps, promptCommand } from './prompts.ts';
import { codemodeReachesTools, PI_CODEMODE_TOOL, wantsCodemode } from './tool-model.ts';
import type { PiTools } from './tool-registration.ts';

export const STATUS_KEY = 'mcp';
/** Tools of Pi's built-in MCP that must never stay active next to ours. */
const BUILTIN_MCP_TOOL =
  /^(mcp__|tool_search$|list_mcp_resources$|list_mcp_resource_templates$|read_mcp_resource$)/;

export interface PiHostPortDeps {
  pi: PiHost;
  tools: PiTools;
  /** The config as last loaded for the current session. */
  config(): LoadedConfig | undefined;
  /** What Pi has of ours, once the start path has loaded it. */
  registry(): RegisteredTools | undefined;
  /** The Pi context of the latest event, tool call or command: where the status and notices go. */
  context(): PiContext | undefined;
  prompt(server: string, name: string, args: Record<string, string>): Promise<PromptOutcome>;
  completePrompt: PromptCommandDeps['complete'];
  tell(target: PiContext | undefined, raw: string, level: NotifyLevel): void;
  safely(fn: () => void): void;
}

export function piHostPort(deps: PiHostPortDeps): HostPort {
  const { pi, tools, safely } = deps;
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
        const ctx = deps.context();
        if (ctx?.hasUI) ctx.ui.addAutocompleteProvider?.((current) => current);
      });
    });
  };

  return {
    registerTool: (entry) => tools.registerMcpTool(entry, entry.exposure === 'direct'),
    withdrawTool: (entry) => tools.registerMcpTool(entry, false, true),
    // Pi's codemode scripts call tools by name: every tool must exist in Pi then.
    registersEveryTool: () => {
      const config = deps.config();
      return config !== undefined && codemodeReachesTools(config.servers, pi.getActiveTools());
    },
    registerPrompt: (server, prompt) => {
      pi.registerCommand(
        promptCommandName(server, prompt.name),
        promptCommand(server, prompt, {
          prompt: deps.prompt,
          complete: deps.completePrompt,
          tell: deps.tell,
          send: (content, commandCtx) =>
            pi.sendUserMessage?.(
              content,
              commandCtx.isIdle?.() === false ? { deliverAs: 'followUp' } : undefined,
            ),
        }),
      );
      refreshSlashCommands();
    },
    registerToolSearch: tools.registerToolSearch,
    setActiveMcpTools(names) {
      const ours = deps.registry();
      const keep = pi.getActiveTools().filter((n) => !ours?.has(n) && !BUILTIN_MCP_TOOL.test(n));
      const config = deps.config();
      const codemode = config && wantsCodemode(config.servers) ? [PI_CODEMODE_TOOL] : [];
      pi.setActiveTools([...new Set([...keep, TOOL_SEARCH_NAME, ...codemode, ...names])]);
    },
    setStatus: (text) => safely(() => deps.context()?.ui.setStatus(STATUS_KEY, text)),
    notify: (message, level) => safely(() => deps.tell(deps.context(), message, level)),
  };
}
