// Human-readable views of server actor snapshots: the status-bar line, /mcp, the CLI. They read the
// snapshots (the one source of truth) and never show a secret: only names, states and error text.

import type { SharedHostView } from '../adapters/mcp/connection-port.ts';
import { type Surface, signInAdvice } from '../auth/sign-in-advice.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { formatElapsed } from '../duration.ts';
import { type ServerState, serverStateOf } from '../machines/server.machine.ts';
import type { SessionContext } from '../machines/session.machine.ts';
import type { SecretValues } from '../redact/index.ts';
import { serverErrorText } from '../server-error-text.ts';
import type { ServerActorRef } from '../session/ensure-connected.ts';
import { plainText } from '../terminal-text.ts';
import { wordsFor } from '../tools/surface-words.ts';

const STATE_LABEL: Record<ServerState, string> = {
  init: 'not started',
  connecting: 'connecting',
  connected: 'connected',
  closing: 'closing',
  needsAuth: 'needs auth',
  backoff: 'failed, retrying',
  closed: 'idle',
};

/** The top-level state's name, for display (what to do is decided by the snapshot's tags). */
export function stateOf(ref: ServerActorRef): ServerState {
  return serverStateOf(ref.getSnapshot());
}

/** The shared host running this server's live connection (the snapshot's `connection`), if any. */
export function sharedHostOf(ref: ServerActorRef): SharedHostView | undefined {
  return ref.getSnapshot().context.connection?.sharedHost;
}

/**
 * Said beside a server's state on every surface (/mcp, the panel, the CLI) when the host runs it, with
 * the host's copy's state when that is not connected (while it closes: once it has gone elsewhere, the
 * session's own actor mirrors it, docs/shared-host.md).
 */
export function sharedHostText(host: Pick<SharedHostView, 'pid' | 'instance'>): string {
  const shared = `shared (host pid ${host.pid})`;
  const instance = host.instance;
  if (!instance || instance.state === 'connected') return shared;
  const next =
    instance.state === 'backoff' && instance.nextRetryAt !== undefined
      ? `, next try in ${formatElapsed(Math.max(0, instance.nextRetryAt - Date.now()))}`
      : '';
  return `${shared}, host: ${STATE_NAME[instance.state]}${next}`;
}

/** A server state in the machine's words (the panel's state trail, the host's copy in /mcp and `pi-mcp-actors host`). */
export const STATE_NAME: Record<ServerState, string> = {
  init: 'init',
  connecting: 'connecting',
  connected: 'connected',
  closing: 'closing',
  needsAuth: 'needs-auth',
  backoff: 'backoff',
  closed: 'closed',
};

/**
 * What a server means for the user right now; `ready` includes idle servers that start on use. A
 * `closing` one is not ready: its connection is ending (a CLOSE, a disable, the session stopping).
 */
export type ServerHealth = 'ready' | 'connecting' | 'closing' | 'needs-auth' | 'failing';

export function healthOf(ref: ServerActorRef): ServerHealth {
  const snapshot = ref.getSnapshot();
  if (snapshot.hasTag('starting')) return 'connecting';
  if (snapshot.hasTag('closing')) return 'closing';
  if (snapshot.hasTag('needsSignIn')) return 'needs-auth';
  if (snapshot.hasTag('failed') || failedAndResting(ref)) return 'failing';
  return 'ready';
}

/** A lazy server whose last attempt failed rests in `closed` until the next call retries it. */
function failedAndResting(ref: ServerActorRef): boolean {
  const snapshot = ref.getSnapshot();
  const ctx = snapshot.context;
  return snapshot.hasTag('resting') && ctx.lastError !== undefined && ctx.attempt > 0;
}

/** At most this many servers are named in the status line; the rest are counted. */
const NAMED_IN_STATUS = 2;

/** The status-bar entry, one short line naming what needs attention: `MCP 4/5 · github needs sign-in`. */
export function statusLine(
  context: SessionContext,
  refs: Record<string, ServerActorRef>,
): string | undefined {
  const edit = context.configError ? 'config edit not applied (/mcp)' : context.configNote;
  const line = statusOfServers(context, refs);
  return line && edit ? `${line} · ${edit}` : (line ?? edit);
}

function statusOfServers(context: SessionContext, refs: Record<string, ServerActorRef>): string | undefined {
  if ((context.config?.servers.length ?? 0) === 0) return undefined;
  const names = Object.keys(refs)
    .filter((name) => !context.disabled.includes(name))
    .sort();
  if (names.length === 0) return `MCP · ${context.disabled.length} disabled`;
  const health = names.map((name) => ({ name, health: healthOf(refs[name]!) }));
  const ready = health.filter((h) => h.health === 'ready').length;
  const attention = [
    ...health.filter((h) => h.health === 'needs-auth').map((h) => `${h.name} needs sign-in`),
    ...health.filter((h) => h.health === 'failing').map((h) => `${h.name} failing`),
  ];
  const connecting = health.filter((h) => h.health === 'connecting').length;
  const closing = health.filter((h) => h.health === 'closing').length;
  const parts = [`MCP ${ready}/${names.length}`, ...attention.slice(0, NAMED_IN_STATUS)];
  if (attention.length > NAMED_IN_STATUS) parts.push(`+${attention.length - NAMED_IN_STATUS} more`);
  if (attention.length === 0 && connecting > 0) parts.push(`${connecting} connecting`);
  if (attention.length === 0 && closing > 0) parts.push(`${closing} closing`);
  return parts.join(' · ');
}

function ago(at: number | undefined): string {
  if (!at) return '';
  return ` (${formatElapsed(Date.now() - at)} ago)`;
}

function lastLines(text: string, n: number): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

export interface OfferedCounts {
  tools: number;
  /** Resources and resource templates the model reads through tools. */
  resources: number;
}

/** What a server offers the model, counted alike on every surface (panel, /mcp, CLI): its tools as
 * the catalog has them (includeTools / excludeTools applied) and its resources read through tools.
 * Without a catalog, the server's own tool count. */
export function offeredCounts(catalog: Catalog | undefined, server: string, listed = 0): OfferedCounts {
  if (!catalog) return { tools: listed, resources: 0 };
  let tools = 0;
  let resources = 0;
  for (const entry of catalog.entries) {
    if (entry.server !== server) continue;
    if (entry.kind === 'tool') tools++;
    else resources++;
  }
  return { tools, resources };
}

export function countsText(counts: OfferedCounts): string {
  const tools = `${counts.tools} tool${counts.tools === 1 ? '' : 's'}`;
  return counts.resources > 0
    ? `${tools}, ${counts.resources} resource${counts.resources === 1 ? '' : 's'}`
    : tools;
}

/** One block per server: state, lifecycle, tool count, last error with the stderr tail, hints. */
export function describeServers(
  refs: Record<string, ServerActorRef>,
  options: { secrets: SecretValues; brief?: boolean; surface?: Surface; catalog?: Catalog },
): string {
  const words = wordsFor(options.surface);
  const blocks: string[] = [];
  for (const [name, ref] of Object.entries(refs).sort(([a], [b]) => a.localeCompare(b))) {
    const snapshot = ref.getSnapshot();
    const state = stateOf(ref);
    const ctx = snapshot.context;
    // Servers print what they like on stderr, tokens included: never show a configured secret.
    const clean = (text: string) => plainText(options.secrets.redact(text));
    const counts = ctx.catalog ? offeredCounts(options.catalog, name, ctx.catalog.tools.length) : undefined;
    const shared = sharedHostOf(ref);
    const head = `${name}: ${failedAndResting(ref) ? 'failed, the next call retries' : STATE_LABEL[state]}${shared ? `, ${sharedHostText(shared)}` : ''}`;
    if (options.brief) {
      if (snapshot.hasTag('needsSignIn'))
        blocks.push(`MCP server ${name} needs authentication: ${signInAdvice(name, options.surface)}`);
      else if (ctx.lastError)
        blocks.push(`MCP server ${name} failed: ${clean(serverErrorText(ctx.lastError))}`);
      else blocks.push(`MCP server ${head}`);
      continue;
    }
    const lines = [
      `${head} — ${ctx.definition.lifecycle}, ${ctx.definition.transport}${counts ? `, ${countsText(counts)}` : ''}`,
    ];
    if (ctx.inFlight > 0) lines.push(`  ${ctx.inFlight} call(s) in flight`);
    if (snapshot.hasTag('needsSignIn'))
      lines.push(`  needs authentication: ${signInAdvice(name, options.surface)}`);
    if (snapshot.hasTag('failed') && ctx.nextRetryAt) {
      lines.push(
        `  next try in ${formatElapsed(ctx.nextRetryAt - Date.now())} (attempt ${ctx.attempt}); ${words.retryNow(name)}`,
      );
    }
    if (ctx.lastError)
      lines.push(`  last error${ago(ctx.lastError.at)}: ${clean(serverErrorText(ctx.lastError))}`);
    const hostError = shared?.instance?.state === 'connected' ? undefined : shared?.instance?.lastError;
    if (hostError) lines.push(`  the host's last error: ${clean(serverErrorText(hostError))}`);
    if (ctx.lastError && ctx.stderrTail) {
      lines.push(
        '  stderr:',
        ...lastLines(clean(ctx.stderrTail), 5)
          .split('\n')
          .map((l: string) => `    ${l}`),
      );
    }
    blocks.push(lines.join('\n'));
  }
  return blocks.join('\n');
}
