// The ToolSearch use case: the search over the session's catalog, after waiting (briefly) for servers
// whose tools are not known yet; the matches are activated for the next model request and their
// servers started, and the model is told once per session why a server's tools are missing.

import { waitFor } from 'xstate';
import type { CatalogEntry } from '../catalog/catalog.ts';
import { plainText } from '../terminal-text.ts';
import type { ToolResult } from '../tools/executor.ts';
import { instructionsNote } from '../tools/server-instructions.ts';
import { renderSearchOutcome, searchCatalog, unavailableNote } from '../tools/tool-search-answer.ts';
import { activeNames } from './active-tools.ts';
import { serverTools } from './describe-session.ts';
import { ensureConnected, type ServerActorRef, type ServerUnavailable } from './ensure-connected.ts';
import { redactResult } from './outbound.ts';
import { type SessionDeps, stillRunning, untilStarted } from './session-deps.ts';

export type SearchDeps = Pick<
  SessionDeps,
  | 'snapshot'
  | 'send'
  | 'until'
  | 'catalogOf'
  | 'servers'
  | 'clock'
  | 'secrets'
  | 'words'
  | 'surface'
  | 'startLoadedServers'
>;

/** How long a ToolSearch waits for servers whose tools are unknown before it answers without them. */
export const SEARCH_WAIT_MS = 1_000;

/** What a ToolSearch learns of the servers whose tools were unknown: which failed, which still list. */
interface UnknownServers {
  failed: Map<string, ServerUnavailable>;
  listing: string[];
}

export async function searchTools(
  deps: SearchDeps,
  query: string,
  signal?: AbortSignal,
): Promise<ToolResult> {
  const { secrets, words } = deps;
  await untilStarted(deps, signal);
  const running = stillRunning(deps);
  // An edit since the last turn's end is seen now (the files' sizes and times, read only if changed).
  deps.send({ type: 'CONFIG_CHECK' });
  const { failed, listing: stillListing } = await waitForUnknownServers(deps, signal);
  // The session stopped (a shutdown, or a new session) while this search waited: nothing was loaded.
  if (!running()) return answer(deps, query, stoppedText, []);
  const context = deps.snapshot().context;
  const catalog = deps.catalogOf(context);
  const outcome = searchCatalog(
    catalog,
    query,
    new Set(activeNames(context, catalog)),
    (e) => !context.disabled.includes(e.server),
  );
  // server:<name> of a configured server without tools says why, in place of "no server named".
  const asked = outcome.kind === 'unknown-server' ? outcome.server : undefined;
  const configured = asked !== undefined && context.config?.servers.some((d) => d.name === asked);
  if (asked !== undefined && configured && !context.disabled.includes(asked)) {
    const reason = failed.get(asked);
    if (reason) deps.send({ type: 'MODEL_TOLD', troubles: [`${asked}:${reason.kind}`] });
    const text = reason ? secrets.redact(unavailableNote(reason, words)) : `Server ${asked} offers no tools.`;
    return answer(deps, query, text, []);
  }
  // Told once per session and kind of trouble: the model keeps what it read.
  const notes = stillListing.map(
    (name) => `Note: MCP server "${name}" is still starting (listing its tools); search again in a moment.`,
  );
  const troubles: string[] = [];
  for (const [name, reason] of failed) {
    const key = `${name}:${reason.kind}`;
    if (context.troublesTold.includes(key) || troubles.includes(key)) continue;
    troubles.push(key);
    notes.push(`Note: ${secrets.redact(unavailableNote(reason, words))}`);
  }
  if (outcome.kind === 'loaded') {
    deps.send({ type: 'ACTIVATE', names: outcome.entries.map((e) => e.name) });
    startInBackground(deps, outcome.entries);
  }
  const loaded = outcome.kind === 'loaded' ? outcome.entries.map(entrySummary) : [];
  const instructed: string[] = [];
  for (const server of new Set(loaded.map((e) => e.server))) {
    const instructions = context.catalogs[server]?.instructions;
    if (context.instructionsTold.includes(server) || !instructions) continue;
    instructed.push(server);
    const note = instructionsNote(server, instructions);
    if (note) notes.push(note);
  }
  if (troubles.length > 0 || instructed.length > 0)
    deps.send({ type: 'MODEL_TOLD', troubles, instructions: instructed });
  return answer(deps, query, renderSearchOutcome(query, outcome, notes), loaded);
}

const stoppedText =
  'The MCP session was stopped or restarted while this search waited for its servers; nothing was loaded. Search again.';

function answer(
  deps: Pick<SearchDeps, 'secrets'>,
  query: string,
  text: string,
  loaded: ReturnType<typeof entrySummary>[],
): ToolResult {
  return redactResult(
    { content: [{ type: 'text', text: plainText(text) }], details: { query, loaded } },
    deps.secrets,
  );
}

/**
 * Servers whose tools are not known yet (no cache, not listed) are connected and waited for: while
 * they start (bounded by their startup timeout), then at most SEARCH_WAIT_MS once they are listing
 * their tools. A ToolSearch answers from what is known then and names the servers still listing;
 * their connects go on, and their tools are registered when they arrive, for the next search.
 */
async function waitForUnknownServers(deps: SearchDeps, signal?: AbortSignal): Promise<UnknownServers> {
  const context = deps.snapshot().context;
  const refs = deps.servers();
  const unknown = serverTools(context)
    .filter((s) => !s.tools && refs[s.definition.name])
    .map((s) => s.definition.name);
  const failed = new Map<string, ServerUnavailable>();
  const done = new Set<string>();
  if (unknown.length === 0) return { failed, listing: [] };
  const surface = deps.surface ? { surface: deps.surface } : {};
  const settled = unknown.map(async (name) => {
    const result = await ensureConnected(refs[name]!, { ...(signal ? { signal } : {}), ...surface });
    if (!result.ok && result.error.kind !== 'aborted') failed.set(name, result.error);
    done.add(name);
  });
  const listed = new AbortController();
  await Promise.all(
    unknown.map((name, i) => Promise.race([settled[i], listingStarted(refs[name]!, listed)])),
  );
  listed.abort();
  if (done.size < unknown.length) {
    let timer: unknown;
    const bound = new Promise<void>((resolve) => {
      timer = deps.clock.setTimeout(resolve, SEARCH_WAIT_MS);
    });
    await Promise.race([Promise.all(settled), bound]);
    deps.clock.clearTimeout(timer);
  }
  return { failed, listing: unknown.filter((name) => !done.has(name)) };
}

/** Resolves when the server is listing its tools (its `listing` tag), or once `until` is aborted. */
function listingStarted(ref: ServerActorRef, until: AbortController): Promise<unknown> {
  return waitFor(ref, (s) => s.hasTag('listing'), { signal: until.signal }).catch(() => undefined);
}

/**
 * The model calls what it just loaded on its next turn, seconds away: its servers start now. A start
 * that is never used ends with the idle timeout; a server that needs auth or waits in backoff stays so.
 */
function startInBackground(deps: SearchDeps, entries: CatalogEntry[]) {
  if (!deps.startLoadedServers) return;
  const refs = deps.servers();
  for (const server of new Set(entries.map((e) => e.server))) {
    const ref = refs[server];
    if (ref) void ensureConnected(ref);
  }
}

function entrySummary(e: CatalogEntry) {
  return { name: e.name, server: e.server, tool: e.tool };
}
