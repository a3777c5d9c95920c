// ToolSearch's answer: the search over the session's catalog and the text the model reads. Loaded on
// the first search, with the search index (the description in tool-search.ts is all startup needs).

import type { Catalog, CatalogEntry } from '../catalog/catalog.ts';
import { worthLoading } from '../catalog/search/worth-loading.ts';
import { searchIndexOf } from '../catalog/search.ts';
import type { SurfaceWords } from '../ports/surface-words.ts';
import type { ServerUnavailable } from '../session/ensure-connected.ts';
import { plainText } from '../terminal-text.ts';
import { wordsFor } from './surface-words.ts';
import { oneLine, SEARCH_LIMIT } from './tool-search.ts';

export type SearchOutcome =
  | {
      kind: 'loaded';
      entries: CatalogEntry[];
      alreadyActive: string[];
      unknownNames?: string[];
      /** Matched, but far below the best: named in the answer, not loaded (select: loads them). */
      also?: string[];
      /** Set when even the best hit matched little of the query: the servers that came closest. */
      weak?: { closestServers: string[] };
    }
  | { kind: 'none'; suggestions: string[]; unknownNames?: string[]; servers?: string[] }
  | { kind: 'server'; server: string; entries: CatalogEntry[] }
  | { kind: 'unknown-server'; server: string; servers: string[] };

/** Below this share of the query's words matched by the best hit, the answer says it is a weak match. */
const WEAK_MATCH = 0.4;
const CLOSEST_SERVERS = 3;
const LISTING_LINE_CHARS = 70;

/** Servers ranked by the score of their hits for the query. */
function closestServers(catalog: Catalog, hits: Array<{ name: string; score: number }>): string[] {
  const byServer = new Map<string, number>();
  for (const hit of hits) {
    const server = catalog.byName.get(hit.name)?.server;
    if (server) byServer.set(server, (byServer.get(server) ?? 0) + hit.score);
  }
  return [...byServer.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, CLOSEST_SERVERS)
    .map(([server]) => server);
}

function serverNames(catalog: Catalog, isAvailable: (entry: CatalogEntry) => boolean): string[] {
  return [...new Set(catalog.entries.filter(isAvailable).map((e) => e.server))].sort();
}

function listServer(
  catalog: Catalog,
  server: string,
  isAvailable: (entry: CatalogEntry) => boolean,
): SearchOutcome {
  const entries = catalog.entries.filter((e) => e.server === server && isAvailable(e));
  if (entries.length > 0) return { kind: 'server', server, entries };
  const servers = serverNames(catalog, isAvailable);
  const lower = server.toLowerCase();
  const close = servers.filter((s) => s.toLowerCase().includes(lower) || lower.includes(s.toLowerCase()));
  return { kind: 'unknown-server', server, servers: close.length > 0 ? close : servers };
}

export function searchCatalog(
  catalog: Catalog,
  query: string,
  active: ReadonlySet<string>,
  isAvailable: (entry: CatalogEntry) => boolean = () => true,
): SearchOutcome {
  const trimmed = query.trim();
  if (/^server:/i.test(trimmed))
    return listServer(catalog, trimmed.slice('server:'.length).trim(), isAvailable);
  let entries: CatalogEntry[];
  let unknownNames: string[] | undefined;
  let weak: { closestServers: string[] } | undefined;
  let also: string[] | undefined;
  if (/^select:/i.test(trimmed)) {
    const names = trimmed
      .slice('select:'.length)
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    entries = names
      .map((n) => catalog.byName.get(n))
      .filter((e): e is CatalogEntry => e !== undefined && isAvailable(e));
    unknownNames = names.filter((n) => !entries.some((e) => e.name === n));
  } else {
    const hits = searchIndexOf(catalog)
      .search(trimmed, SEARCH_LIMIT * 2)
      .filter((hit) => {
        const entry = catalog.byName.get(hit.name);
        return entry !== undefined && isAvailable(entry);
      });
    const worth = worthLoading(hits.slice(0, SEARCH_LIMIT));
    entries = worth.load.map((hit) => catalog.byName.get(hit.name)!);
    also = worth.also.map((hit) => hit.name);
    if (hits.length > 0 && hits[0]!.matched < WEAK_MATCH)
      weak = { closestServers: closestServers(catalog, hits) };
  }
  if (entries.length === 0) {
    const suggestions = searchIndexOf(catalog).suggest(trimmed.replace(/^select:/i, ''), 5);
    const servers = serverNames(catalog, isAvailable);
    return {
      kind: 'none',
      suggestions,
      ...(unknownNames ? { unknownNames } : {}),
      ...(servers.length > 0 ? { servers } : {}),
    };
  }
  return {
    kind: 'loaded',
    entries,
    alreadyActive: entries.filter((e) => active.has(e.name)).map((e) => e.name),
    // A select: with a typo among good names must say so, or the model calls a tool that is not there.
    ...(unknownNames && unknownNames.length > 0 ? { unknownNames } : {}),
    ...(also && also.length > 0 ? { also } : {}),
    ...(weak ? { weak } : {}),
  };
}

/** Why a server's tools are missing from ToolSearch, told to the model (not the user's commands). */
export function unavailableNote(
  reason: Pick<ServerUnavailable, 'kind' | 'server' | 'lastError'>,
  words: SurfaceWords = wordsFor('pi'),
): string {
  const { server } = reason;
  if (reason.kind === 'needs-auth')
    return `MCP server "${server}" needs the user to sign in, so its tools are not listed. If they are needed, ask the user to sign in with ${words.signIn(server)}.`;
  const why = reason.lastError ? ` failed to connect: ${reason.lastError}` : ' is not available';
  return `MCP server "${server}"${why}. Its tools are not listed; if they are needed, tell the user that "${server}" is failing.`;
}

/** Names listed back to the model, at most this many (a query may name thousands). */
const MAX_LISTED_NAMES = 20;

function listNames(names: string[]): string {
  const shown = names.slice(0, MAX_LISTED_NAMES).map((n) => plainText(n, 80).replace(/\s+/g, ' '));
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

export function renderSearchOutcome(rawQuery: string, outcome: SearchOutcome, notes: string[] = []): string {
  const query = plainText(rawQuery, 200).replace(/\s+/g, ' ');
  const tail = notes.length > 0 ? `\n${notes.join('\n')}` : '';
  if (outcome.kind === 'server') {
    const lines = outcome.entries.map(
      (e) => `- ${e.name}: ${oneLine(e.description, LISTING_LINE_CHARS) || '(no description)'}`,
    );
    return `Server ${outcome.server} has ${outcome.entries.length} tool${outcome.entries.length === 1 ? '' : 's'} (none loaded by this listing; load with select:<names>):\n${lines.join('\n')}${tail}`;
  }
  if (outcome.kind === 'unknown-server') {
    return `No server named "${outcome.server}". Servers: ${outcome.servers.join(', ') || '(none)'}. Use server:<name>.${tail}`;
  }
  if (outcome.kind === 'none') {
    const unknown =
      outcome.unknownNames && outcome.unknownNames.length > 0
        ? `Unknown tool names: ${listNames(outcome.unknownNames)}. `
        : '';
    const close = outcome.suggestions.length > 0 ? `Close names: ${outcome.suggestions.join(', ')}. ` : '';
    const servers =
      outcome.servers && outcome.servers.length > 0
        ? ` Servers: ${outcome.servers.join(', ')}; server:<name> lists one's tools.`
        : '';
    return `${unknown}No tools matched "${query}". ${close}Try other keywords, or select:<exact name>.${servers}${tail}`;
  }
  const lines = outcome.entries.map(
    (e) => `- ${e.name}: ${oneLine(e.description, 100) || '(no description)'}`,
  );
  if (outcome.unknownNames) {
    lines.push(
      `Unknown tool names (not loaded): ${listNames(outcome.unknownNames)}. Search by keywords to find them.`,
    );
  }
  if (outcome.also) {
    lines.push(`Also matched, less well (not loaded; select:<name> loads one): ${listNames(outcome.also)}.`);
  }
  const weak = outcome.weak
    ? `No tool matched most of "${query}"; these are the nearest. Closest servers: ${outcome.weak.closestServers.join(', ')} (server:<name> lists one's tools).\n`
    : '';
  return `${weak}Loaded ${outcome.entries.length} tool${outcome.entries.length === 1 ? '' : 's'}; call ${
    outcome.entries.length === 1 ? 'it' : 'them'
  } directly from your next step:\n${lines.join('\n')}${tail}`;
}
