// Our slash commands: /mcp (the live panel in Pi's TUI, text elsewhere; `allow` for project servers)
// and /mcp-auth. Registered at load so Pi lists them; what they run loads on first use.

import type { Runtime } from '../../actors/session-actor.ts';
import type { CommandUi } from '../../commands/mcp-command.ts';
import type { NotifyLevel } from '../../session/host-port.ts';
import type { PiCustomUi } from './panel.ts';
import type { PiContext, PiHost } from './pi-types.ts';

export interface SlashCommandDeps {
  pi: PiHost;
  /** The command's context becomes the current one (where dialogs and notices go). */
  useContext(ctx: PiContext): void;
  ready(): Promise<Runtime>;
  commands(): Promise<Pick<typeof import('./session-runtime.ts'), 'runMcpCommand' | 'runAuthCommand'>>;
  /** `/mcp allow …` (./project-consent-flow.ts); `ask`: from the panel, asks first. */
  allow(commandCtx: PiContext, names: string, ask: boolean): Promise<void>;
  /** `/mcp forget …` and the panel's `f` (./project-consent-flow.ts). */
  forget(commandCtx: PiContext, names: string): Promise<void>;
  tell(target: PiContext | undefined, raw: string, level: NotifyLevel): void;
  log(level: 'error', text: string): void;
}

/** Pi's yes/no dialog for a command's question; none without a UI (print mode, RPC without one). */
function commandUi(ctx: PiContext): CommandUi {
  const { ui } = ctx;
  if (!ctx.hasUI || !ui.confirm) return {};
  return { confirm: (question) => ui.confirm!('Restart a shared MCP server', question) };
}

const SUBCOMMANDS = ['status', 'tools', 'prompts', 'reconnect', 'enable', 'disable', 'allow', 'forget'];

export function registerSlashCommands(deps: SlashCommandDeps): void {
  const { pi, tell } = deps;

  async function command(commandCtx: PiContext, name: string, run: (rt: Runtime) => Promise<string>) {
    deps.useContext(commandCtx);
    const text = await deps
      .ready()
      .then(run)
      .catch((e: unknown) => `/${name} failed: ${String(e)}`);
    tell(commandCtx, text, 'info');
  }

  const mcpAuth = (args: string, commandCtx: PiContext) =>
    command(commandCtx, 'mcp-auth', async (rt) =>
      (await deps.commands()).runAuthCommand(args, rt, commandCtx),
    );

  /** The live panel in Pi's TUI; false where Pi has none (print, JSON, RPC): /mcp prints text there. */
  async function openPanel(commandCtx: PiContext): Promise<boolean> {
    const ui = commandCtx.ui;
    if (commandCtx.mode !== 'tui' || !ui.custom) return false;
    const custom: PiCustomUi = { custom: ui.custom.bind(ui) };
    const { showMcpPanel } = await import('./panel.ts');
    const outcome = await showMcpPanel(custom, await deps.ready()).catch((error: unknown) => {
      deps.log('error', `/mcp panel failed: ${String(error)}`);
      return undefined;
    });
    if (outcome?.kind === 'signIn') await mcpAuth(outcome.server, commandCtx);
    if (outcome?.kind === 'allow') await deps.allow(commandCtx, outcome.server, true);
    if (outcome?.kind === 'forget') await deps.forget(commandCtx, outcome.server);
    return outcome !== undefined;
  }

  pi.registerCommand('mcp', {
    description:
      'MCP servers: status, <server>, tools [server], prompts [server], reconnect [server], enable|disable <server>, allow <server>|--all, forget <server>|--all',
    // Only words that add to what is typed: a completion equal to it would take the Enter that
    // should run the command (and leave the editor's text behind for the next one).
    getArgumentCompletions: (prefix) => {
      const words = SUBCOMMANDS.filter((c) => c.startsWith(prefix) && c !== prefix);
      return words.length > 0 ? words.map((c) => ({ value: c, label: c })) : null;
    },
    handler: async (args, commandCtx) => {
      deps.useContext(commandCtx);
      if (args.trim() === '' && (await openPanel(commandCtx))) return;
      const allow = /^allow(?:\s+(.*))?$/s.exec(args.trim());
      if (allow) return deps.allow(commandCtx, allow[1]?.trim() ?? '', false);
      const forget = /^forget(?:\s+(.*))?$/s.exec(args.trim());
      if (forget) return deps.forget(commandCtx, forget[1]?.trim() ?? '');
      await command(commandCtx, 'mcp', async (rt) =>
        (await deps.commands()).runMcpCommand(args, rt, commandUi(commandCtx)),
      );
    },
  });
  pi.registerCommand('mcp-auth', {
    description: 'Sign in to an MCP server (OAuth), or retry one that answered 401; lists those that need it',
    handler: mcpAuth,
  });
}
