// The call use case: a model's call of an MCP tool in this session. It waits for a server a config
// edit is restarting, then runs the executor (connect if needed, approval, the call, progress) with
// what the session knows: its catalog, its servers, its approvals, why a name is unknown or gone.

import { defaultSettings } from '../config/defaults.ts';
import type { SessionContext } from '../machines/session.machine.ts';
import { createToolApprovals } from '../tools/approval.ts';
import { executeTool, type ProgressUpdate, type ToolResult } from '../tools/executor.ts';
import { redactProgress, redactResult } from './outbound.ts';
import { type SessionDeps, untilStarted } from './session-deps.ts';
import { signInFirst, type WaitingServer } from './unknown-tool.ts';

export type CallDeps = Pick<
  SessionDeps,
  | 'snapshot'
  | 'send'
  | 'until'
  | 'catalogOf'
  | 'servers'
  | 'removedTool'
  | 'stats'
  | 'askApproval'
  | 'clock'
  | 'secrets'
  | 'words'
  | 'surface'
  | 'tempDir'
>;

export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  signal?: AbortSignal | undefined;
  onUpdate?: ProgressUpdate | undefined;
}

export async function callTool(deps: CallDeps, call: ToolCall): Promise<ToolResult> {
  const { name, args, signal } = call;
  const { secrets } = deps;
  await untilStarted(deps, signal);
  deps.send({ type: 'CONFIG_CHECK' });
  // A server a config edit changed finishes its calls, then restarts: a new call goes to the new one.
  const server = deps.catalogOf(deps.snapshot().context).byName.get(name)?.server;
  if (server !== undefined && deps.snapshot().context.retiring.includes(server))
    await deps.until((s) => !s.context.retiring.includes(server), signal);
  const context = deps.snapshot().context;
  const catalog = deps.catalogOf(context);
  const stats = deps.stats();
  // `approveTools` answers, remembered for the session in its machine's context (a new session asks
  // again; the machine drops an answer that arrives after one started).
  const approvals = createToolApprovals(deps.askApproval, secrets, deps.words, {
    has: (grant) => deps.snapshot().context.approved.includes(grant),
    add: (grant) => deps.send({ type: 'APPROVED', grant, generation: context.generation }),
  });
  const result = await executeTool(
    {
      secrets,
      entry: (n) => catalog.byName.get(n),
      names: () => catalog.entries.filter((e) => !context.disabled.includes(e.server)).map((e) => e.name),
      server: (s) => (context.disabled.includes(s) ? undefined : deps.servers()[s]),
      settings: context.config?.settings ?? defaultSettings(),
      tempDir: deps.tempDir,
      clock: deps.clock,
      ...(stats ? { stats } : {}),
      ...(deps.surface ? { surface: deps.surface } : {}),
      unknownTool: (n) => signInFirst(n, waitingForFirstSignIn(deps, context), deps.surface),
      removedTool: (n) => {
        const removed = deps.removedTool(n);
        return removed ? { server: removed.server, message: removedToolNote(n, removed) } : undefined;
      },
      approve: (entry, callArgs, approveSignal) => {
        const definition = context.config?.servers.find((d) => d.name === entry.server);
        return definition
          ? approvals.check(definition, entry, callArgs, approveSignal)
          : Promise.resolve(undefined);
      },
    },
    name,
    args,
    signal,
    redactProgress(call.onUpdate, secrets),
  );
  return redactResult(result, secrets);
}

/** Why a tool name is gone when a config edit removed its server this session (Pi answers "not found"). */
export function removedToolNote(name: string, removed: { server: string; file: string }): string {
  return `Tool ${name} is gone: MCP server "${removed.server}" was removed from the config (${removed.file}). Use ToolSearch to find what the config offers now.`;
}

/** Servers that wait for a sign-in and have never listed their tools. */
function waitingForFirstSignIn(deps: Pick<CallDeps, 'servers'>, context: SessionContext): WaitingServer[] {
  const refs = deps.servers();
  return (context.config?.servers ?? [])
    .filter((d) => !context.catalogs[d.name] && refs[d.name]?.getSnapshot().hasTag('needsSignIn'))
    .map((d) => {
      const lastError = refs[d.name]?.getSnapshot().context.lastError;
      return {
        name: d.name,
        prefix: d.toolPrefix ?? context.config?.settings.toolPrefix ?? 'server',
        ...(lastError ? { lastError } : {}),
      };
    });
}
