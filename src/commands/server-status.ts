// Human-readable views of server actor snapshots: the status-bar line, /mcp, the CLI. They read the
// snapshots (the one source of truth) and never show a secret: only names, states and error text.

import { type Surface, signInAdvice } from '../auth/sign-in-advice.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { unreadableShort } from '../config/unreadable.ts';
import { formatElapsed } from '../duration.ts';
import { serverStateOf } from '../machines/server.machine.ts';
import type { ServerContext } from '../machines/server-types.ts';
import type { SessionContext } from '../machines/session.machine.ts';
import type { SharedHostView } from '../ports/connection.ts';
import type { SharedCopy } from '../ports/host.ts';
import type { ServerState } from '../ports/server-state.ts';
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

/**
 * A server this session has not started (or has let go) that the shared host runs: `warm in the shared
 * host (since 09:01)`, or the host's copy's state when it is not connected.
 */
export function warmText(ref: ServerActorRef, copy: SharedCopy | undefined): string | undefined {
  const snapshot = ref.getSnapshot();
  if (!copy || !snapshot.hasTag('resting') || snapshot.context.lastError) return undefined;
  if (copy.state !== 'connected') return `not started here; in the shared host: ${STATE_NAME[copy.state]}`;
  return `warm in the shared host${copy.since === undefined ? '' : ` (since ${clockTime(copy.since)})`}`;
}

/** The local time of day, `09:12`. */
export function clockTime(epochMs: number): string {
  const at = new Date(epochMs);
  return `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
}

/** The top-level state's name, for display (what to do is decided by the snapshot's tags). */
export function stateOf(ref: ServerActorRef): ServerState {
  return serverStateOf(ref.getSnapshot());
}

/**
 * The shared host running this server (its live connection's, or the one it is attaching to), with its
 * copy's state as the host last pushed it (the snapshot's `hostCopy`, HOST_STATE); undefined when the
 * server runs in the session or nothing is attached.
 */
export function sharedHostOf(ref: ServerActorRef): SharedHostView | undefined {
  const { connection, hostCopy } = ref.getSnapshot().context;
  const host = connection?.sharedHost;
  // While this session attaches (connecting), the host's pushes are all it knows of the copy.
  const pid = host?.pid ?? hostCopy?.hostPid;
  if (pid === undefined) return undefined;
  return {
    pid,
    ...(host?.restart ? { restart: host.restart } : {}),
    ...(hostCopy ? { instance: hostCopy } : {}),
  };
}

/**
 * Said beside a server's state on every surface (/mcp, the panel, the CLI) when the host runs it, with
 * the host's copy's state when that is not connected (while it closes: once it has gone elsewhere, the
 * session's own actor mirrors it, docs/shared-host.md).
 */
export function sharedHostText(host: Pick<SharedHostView, 'pid' | 'instance'>, own?: ServerState): string {
  const shared = `shared (host pid ${host.pid})`;
  const instance = host.instance;
  // The host's state is said only where it differs from the session's own (said already).
  if (!instance || instance.state === 'connected' || instance.state === own) return shared;
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
  // A config file that could not be read is said, never hidden as "no servers".
  const unreadable = unreadableShort(context.config?.diagnostics);
  if ((context.config?.servers.length ?? 0) === 0) return unreadable && `MCP · ${unreadable}`;
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
  if (unreadable) parts.push(unreadable);
  return parts.join(' · ');
}

function ago(at: number | undefined): string {
  if (!at) return '';
  return ` (${formatElapsed(Date.now() - at)} ago)`;
}

/**
 * A server's last error and the newest lines of its stderr, each line said once: an error that quotes
 * the stderr's last line (`exited with code 3 (stderr: …)`) drops the quote when the lines are shown.
 */
export function failureText(
  ctx: { lastError?: ServerContext['lastError']; stderrTail: string },
  clean: (text: string) => string,
  lines: number,
): { error: string; stderr: string[] } | undefined {
  if (!ctx.lastError) return undefined;
  const stderr =
    ctx.stderrTail.trim() === '' ? [] : clean(ctx.stderrTail).trimEnd().split('\n').slice(-lines);
  let error = clean(serverErrorText(ctx.lastError));
  for (const line of stderr) error = error.replace(` (stderr: ${line})`, '');
  return { error, stderr };
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
  options: {
    secrets: SecretValues;
    brief?: boolean;
    surface?: Surface;
    catalog?: Catalog;
    /** The session's servers the shared host runs already (Runtime.sharedCopies). */
    warm?: Record<string, SharedCopy>;
  },
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
    const warm = shared ? undefined : warmText(ref, options.warm?.[name]);
    const label = failedAndResting(ref) ? 'failed, the next call retries' : (warm ?? STATE_LABEL[state]);
    const head = `${name}: ${label}${shared ? `, ${sharedHostText(shared, state)}` : ''}`;
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
    const failure = failureText(ctx, clean, 5);
    if (failure) lines.push(`  last error${ago(ctx.lastError?.at)}: ${failure.error}`);
    const hostError = shared?.instance?.state === 'connected' ? undefined : shared?.instance?.lastError;
    const hostText = hostError ? clean(serverErrorText(hostError)) : undefined;
    if (hostText && hostText !== clean(serverErrorText(ctx.lastError)))
      lines.push(`  the host's last error: ${hostText}`);
    if (failure && failure.stderr.length > 0)
      lines.push('  stderr:', ...failure.stderr.map((l) => `    ${l}`));
    blocks.push(lines.join('\n'));
  }
  return blocks.join('\n');
}
