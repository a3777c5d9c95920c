// What the /mcp panel shows, read from the session's actor snapshots (the one source of truth) and
// its catalog: one row per configured server, and a server's tools. Plain data, no text layout, no
// secret: every text from a server or the config passes the one redaction here.

import type { Runtime } from '../../actors/session-actor.ts';
import type { CatalogEntry } from '../../catalog/catalog.ts';
import { declarationTokens } from '../../catalog/declaration-tokens.ts';
import type { Lifecycle, Transport } from '../../config/types.ts';
import { unreadableText } from '../../config/unreadable.ts';
import type { InstanceState } from '../../ports/host.ts';
import type { ServerState, ServerTag } from '../../ports/server-state.ts';
import { plainLine, plainText } from '../../terminal-text.ts';
import {
  failureText,
  healthOf,
  type OfferedCounts,
  offeredCounts,
  type ServerHealth,
  sharedHostOf,
  stateOf,
  statusLine,
  warmText,
} from '../server-status.ts';

/** How many stderr lines the selected server shows. */
export const STDERR_LINES = 5;

export type ServerRow = RunningServer | { kind: 'disabled'; name: string } | SkippedServerRow;

export interface SkippedServerRow {
  kind: 'skipped';
  name: string;
  reason: string;
  fix?: string;
  /** A project's server waiting for the user's consent: e allows it (docs/security.md). */
  waitingConsent?: true;
}

export interface RunningServer {
  kind: 'running';
  name: string;
  /** The state's name, for display; what the panel does is decided by `tags`. */
  state: ServerState;
  /** The snapshot's tags (ServerTag, src/ports/server-state.ts): `usable`, `starting`, `needsSignIn`… */
  tags: Pick<ReadonlySet<ServerTag>, 'has'>;
  health: ServerHealth;
  /** When the current state was entered (epoch ms). */
  since?: number;
  lifecycle: Lifecycle;
  transport: Transport;
  /** Known tools and resources read through tools (live or cached, counted as /mcp and the CLI
   * count them); undefined when never listed. */
  tools?: OfferedCounts;
  /** Estimated tokens all its tools would add to every request if they were direct. */
  directTokens: number;
  inFlight: number;
  /** The shared host that runs it for this session, while connected there. */
  sharedHost?: { pid: number; instance?: InstanceState };
  /** Not running here, but in the shared host: `warm in the shared host (since 09:01)`. */
  warm?: string;
  attempt: number;
  nextRetryAt?: number;
  lastError?: { message: string; at: number };
  /** The newest stderr lines, redacted. */
  stderr: string[];
  /** Recent states, oldest first, ending with the current one. */
  trail: ServerState[];
  /** Signs in with OAuth (configured so): signing in again makes sense even when connected. */
  oauth: boolean;
  /** Defined by a project file (started with the user's consent): f takes the consent back. */
  fromProject: boolean;
}

/** `session`: made direct for this session (`d`); `loaded`: loaded by ToolSearch this session. */
export type ToolExposure = 'direct' | 'session' | 'loaded' | 'deferred';

export interface ToolRow {
  /** The name the model sees. */
  name: string;
  description: string;
  exposure: ToolExposure;
  tokens: number;
  /** A resource or resource template read through this tool. */
  resource: boolean;
}

export interface PanelView {
  /** False before the session has loaded its configuration. */
  running: boolean;
  /** The status-bar line, also the panel's heading. */
  summary: string;
  servers: ServerRow[];
  /** Config problems (warnings and errors) not tied to a skipped server. */
  problems: number;
  /** A config file that could not be read: the file, the line and the fix (src/config/unreadable.ts). */
  unreadable?: string;
}

// Catalog entries stay the same objects while the catalog does: each is measured once.
const measured = new WeakMap<CatalogEntry, number>();
function tokensOf(entry: CatalogEntry): number {
  let tokens = measured.get(entry);
  if (tokens === undefined) {
    tokens = declarationTokens(entry);
    measured.set(entry, tokens);
  }
  return tokens;
}

export function panelView(runtime: Runtime): PanelView {
  const context = runtime.actor.getSnapshot().context;
  const redact = (text: string) => runtime.secrets.redact(text);
  const config = context.config;
  if (!config) return { running: false, summary: 'MCP: no session is running.', servers: [], problems: 0 };
  const refs = runtime.servers();
  const entries = runtime.catalog().entries;
  const servers: ServerRow[] = [];
  for (const definition of config.servers) {
    const { name } = definition;
    const ref = refs[name];
    if (!ref) {
      if (context.disabled.includes(name)) servers.push({ kind: 'disabled', name });
      continue;
    }
    const snapshot = ref.getSnapshot();
    const ctx = snapshot.context;
    const own = entries.filter((e) => e.server === name);
    const known = ctx.catalog || context.catalogs[name] ? offeredCounts(runtime.catalog(), name) : undefined;
    const row: RunningServer = {
      kind: 'running',
      name,
      state: stateOf(ref),
      tags: new Set(snapshot.tags),
      health: healthOf(ref),
      lifecycle: ctx.definition.lifecycle,
      transport: ctx.definition.transport,
      directTokens: own.reduce((n, e) => n + tokensOf(e), 0),
      inFlight: ctx.inFlight,
      attempt: ctx.attempt,
      stderr:
        ctx.stderrTail.trim() === ''
          ? []
          : plainText(redact(ctx.stderrTail)).trimEnd().split('\n').slice(-STDERR_LINES),
      trail: ctx.trail.map((visit) => visit.state),
      oauth: ctx.definition.auth === 'oauth' || ctx.definition.oauth !== undefined,
      fromProject: definition.fromProject === true,
    };
    // A failing server has failed since its last error: one time for "failed for" and "last error … ago".
    const since = row.health === 'failing' && ctx.lastError ? ctx.lastError.at : ctx.trail.at(-1)?.at;
    if (since !== undefined) row.since = since;
    if (known !== undefined) row.tools = known;
    if (ctx.nextRetryAt !== undefined) row.nextRetryAt = ctx.nextRetryAt;
    const shared = sharedHostOf(ref);
    if (shared)
      row.sharedHost = { pid: shared.pid, ...(shared.instance ? { instance: shared.instance } : {}) };
    else {
      const warm = warmText(ref, runtime.knownSharedCopies?.()[name]);
      if (warm) row.warm = warm;
    }
    // The error without the stderr line it quotes: the lines are shown beside it.
    const failure = failureText(ctx, (text) => plainText(redact(text)), STDERR_LINES);
    if (failure && ctx.lastError) row.lastError = { message: failure.error, at: ctx.lastError.at };
    servers.push(row);
  }
  const unreadable = unreadableText(config.diagnostics);
  const waiting = new Set((config.pending ?? []).map((p) => p.name));
  for (const s of config.skipped) {
    servers.push({
      kind: 'skipped',
      name: s.name,
      reason: plainText(redact(s.reason)),
      ...(s.fix ? { fix: plainText(redact(s.fix)) } : {}),
      ...(waiting.has(s.name) ? { waitingConsent: true as const } : {}),
    });
  }
  return {
    running: true,
    summary: plainLine(statusLine(context, refs) ?? 'MCP: no servers configured'),
    servers,
    problems: config.diagnostics.filter((d) => d.level !== 'info').length,
    ...(unreadable ? { unreadable: plainText(redact(unreadable)) } : {}),
  };
}

/** A server's tools as the catalog knows them, with what each costs per request when direct. */
export function toolRows(runtime: Runtime, server: string): ToolRow[] {
  const { activated, pinned } = runtime.actor.getSnapshot().context;
  const redact = (text: string) => runtime.secrets.redact(text);
  const loaded = new Set(activated);
  const direct = new Set(pinned);
  return runtime
    .catalog()
    .entries.filter((e) => e.server === server)
    .map((e) => ({
      name: e.name,
      description: plainText(redact(e.description)),
      exposure:
        e.exposure === 'direct'
          ? 'direct'
          : direct.has(e.name)
            ? 'session'
            : loaded.has(e.name)
              ? 'loaded'
              : 'deferred',
      tokens: tokensOf(e),
      resource: e.kind !== 'tool',
    }));
}
