// The user's consent to servers of project files (DESIGN rule 11): asked at session start in Pi's
// terminal UI, given with `/mcp allow` (the way in RPC mode, which never asks) or from the panel. The
// answer is remembered per project, then the session starts over with the allowed servers. Loaded only
// when a project server waits for consent or the user asks for it.

import { homedir } from 'node:os';
import { tokenStoreFor } from '../../auth/default-store.ts';
import { signInExists } from '../../auth/sign-in-exists.ts';
import type { LoadedConfig, PendingServer } from '../../config/types.ts';
import type { StartRequest } from '../../machines/session.machine.ts';
import type { NotifyLevel } from '../../session/host-port.ts';
import { askProjectConsent, type FactsOf, waitingList } from './consent-dialog.ts';
import type { FullStart } from './full-start-loader.ts';
import type { PiContext } from './pi-types.ts';

export interface ConsentFlowDeps {
  agentDir: string;
  loadFullStart(): Promise<FullStart>;
  /** Whether `request` is still the current session's. */
  isCurrent(request: StartRequest): boolean;
  /** Starts the current session over (a new generation of the runtime's session). */
  restart(): Promise<void>;
  tell(target: PiContext | undefined, raw: string, level: NotifyLevel): void;
  log(level: 'error', text: string): void;
}

export interface ConsentFlow {
  /**
   * Servers of project files the user has not allowed: in Pi's terminal UI the user is asked now, before
   * anything of the session connects; elsewhere nothing starts and the config's warning says how to allow
   * (JSON mode prints no notifications, so the line goes to stderr there). True when one was allowed.
   */
  settleAtStart(eventCtx: PiContext, request: StartRequest, config: LoadedConfig): Promise<boolean>;
  /**
   * `/mcp allow <server…>|--all`: consent to servers waiting for it, remembered like the dialog's answer;
   * without a name it lists what waits and what each would run. `ask`: from the panel, the same question
   * as at start first.
   */
  allow(
    commandCtx: PiContext,
    waiting: { request: StartRequest; pending: PendingServer[] } | undefined,
    names: string,
    ask: boolean,
  ): Promise<void>;
  /**
   * `/mcp forget <server…>|--all` (or `f` in the panel): takes the consent back; the session starts over,
   * so those servers stop now and ask again before they next start. Without a name it lists the consents.
   */
  forget(commandCtx: PiContext, request: StartRequest | undefined, names: string): Promise<void>;
}

export function projectConsentFlow(deps: ConsentFlowDeps): ConsentFlow {
  const { agentDir, tell } = deps;
  /** Project servers (consent keys) the user denied in this Pi process: not asked again until restart. */
  const denied = new Set<string>();
  const factsOf: FactsOf = (server) => ({
    homeDir: homedir(),
    signedIn: signInExists(tokenStoreFor(agentDir), server.name, server.fields),
  });

  return {
    async settleAtStart(eventCtx, request, config) {
      const { rememberConsent, secrets } = await deps.loadFullStart();
      const pending = config.pending ?? [];
      const select = eventCtx.ui.select;
      if (eventCtx.mode !== 'tui' || !eventCtx.hasUI || !select) {
        const line = config.diagnostics.find((d) => d.code === 'project-server-not-allowed');
        if (eventCtx.mode === 'json' && line)
          process.stderr.write(`${secrets.redact(`MCP: ${line.message} ${line.fix ?? ''}`.trim())}\n`);
        return false;
      }
      try {
        const allowed = await askProjectConsent(
          { select: select.bind(eventCtx.ui) },
          request.cwd,
          pending,
          denied,
          factsOf,
        );
        if (allowed.length === 0) return false;
        await rememberConsent(agentDir, request.cwd, allowed);
        return true;
      } catch (error) {
        deps.log('error', `project consent: ${String(error)}`);
        return false;
      }
    },

    async allow(commandCtx, waiting, names, ask) {
      if (!waiting || waiting.pending.length === 0) {
        tell(commandCtx, 'No server of this project is waiting for consent.', 'info');
        return;
      }
      const { request, pending } = waiting;
      const wanted = names.split(/\s+/).filter(Boolean);
      if (wanted.length === 0) {
        tell(commandCtx, waitingList(pending, factsOf), 'info');
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
        chosen = await askProjectConsent(
          { select: select.bind(commandCtx.ui) },
          request.cwd,
          chosen,
          new Set(),
          factsOf,
        );
        if (chosen.length === 0) return;
      }
      try {
        await (await deps.loadFullStart()).rememberConsent(agentDir, request.cwd, chosen);
      } catch (error) {
        tell(commandCtx, `/mcp allow failed: ${String(error)}`, 'error');
        return;
      }
      tell(
        commandCtx,
        `Allowed for ${request.cwd}: ${chosen.map((p) => p.name).join(', ')}. Starting them.`,
        'info',
      );
      if (deps.isCurrent(request)) await deps.restart();
    },

    async forget(commandCtx, request, names) {
      if (!request) {
        tell(commandCtx, 'No MCP session is running.', 'info');
        return;
      }
      const wanted = names.split(/\s+/).filter(Boolean);
      const { forgetConsent, consentedServers } = await deps.loadFullStart();
      if (wanted.length === 0) {
        const allowed = consentedServers(agentDir, request.cwd);
        tell(
          commandCtx,
          allowed.length === 0
            ? `No server of ${request.cwd} has your consent.`
            : `Allowed for ${request.cwd}: ${allowed.join(', ')}. /mcp forget <server>… or --all takes it back.`,
          'info',
        );
        return;
      }
      const all = wanted.includes('--all');
      let result: Awaited<ReturnType<typeof forgetConsent>>;
      try {
        result = await forgetConsent(agentDir, request.cwd, all ? [] : wanted, all);
      } catch (error) {
        tell(commandCtx, `/mcp forget failed: ${String(error)}`, 'error');
        return;
      }
      const { forgotten, unknown, file } = result;
      if (unknown.length > 0)
        tell(commandCtx, `No consent to take back for ${request.cwd}: ${unknown.join(', ')}.`, 'warning');
      if (forgotten.length === 0) return;
      tell(
        commandCtx,
        `Forgot your consent for ${request.cwd}: ${forgotten.join(', ')} (kept in ${file}). They stop now and ask again before they next start.`,
        'info',
      );
      if (deps.isCurrent(request)) await deps.restart();
    },
  };
}
