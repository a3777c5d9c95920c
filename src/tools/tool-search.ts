// ToolSearch: the one always-active tool through which the model finds and loads deferred MCP tools.
// The description is built once per session and never changes (prompt caches depend on it); the
// answer lists what was loaded, one line each.

import type { Catalog, CatalogEntry } from '../catalog/catalog.ts';

export const TOOL_SEARCH_NAME = 'ToolSearch';
export const SEARCH_LIMIT = 5;
/** Up to this many deferred tools, the description lists tools; above it, servers. */
export const LIST_TOOLS_UP_TO = 8;
/** Above this many servers, the description names servers without their one-line summaries. */
export const COMPACT_ABOVE_SERVERS = 30;

export const toolSearchParameters = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      description: 'A task or keywords; select:name1,name2 for exact names; server:<name> lists a server',
    },
  },
  required: ['query'],
} as const;

export interface ServerSummary {
  name: string;
  /** One line: the config description, else the first tool names. */
  line?: string;
  /** undefined when the server's tools are not known yet (no cache, not connected). */
  toolCount?: number;
}

export function oneLine(text: string, max = 90): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const sentence = flat.match(/^(.+?[.!?])(\s|$)/)?.[1] ?? flat;
  return sentence.length <= max ? sentence : `${sentence.slice(0, max - 1).trimEnd()}…`;
}

export function buildToolSearchDescription(deferred: CatalogEntry[], servers: ServerSummary[]): string {
  const head = 'Find and load MCP tools; loaded tools are callable from your next step.';
  if (servers.length === 0) return `${head} No MCP servers are configured.`;
  if (deferred.length <= LIST_TOOLS_UP_TO && servers.every((s) => s.toolCount !== undefined)) {
    const lines = deferred.map((e) => `- ${e.name}: ${oneLine(e.description, 60)}`);
    return [head, 'Tools:', ...lines].join('\n');
  }
  const count = (s: ServerSummary) => (s.toolCount === undefined ? '?' : String(s.toolCount));
  if (servers.length > COMPACT_ABOVE_SERVERS) {
    return [head, `Servers (tool count): ${servers.map((s) => `${s.name} (${count(s)})`).join(', ')}`].join(
      '\n',
    );
  }
  const lines = servers.map((s) => `- ${s.name} (${count(s)})${s.line ? `: ${s.line}` : ''}`);
  return [head, 'Servers (tool count):', ...lines].join('\n');
}

export type SearchOutcome =
  | {
      kind: 'loaded';
      entries: CatalogEntry[];
      alreadyActive: string[];
      unknownNames?: string[];
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
    const hits = catalog.search.search(trimmed, SEARCH_LIMIT * 2).filter((hit) => {
      const entry = catalog.byName.get(hit.name);
      return entry !== undefined && isAvailable(entry);
    });
    entries = hits.slice(0, SEARCH_LIMIT).map((hit) => catalog.byName.get(hit.name)!);
    if (hits.length > 0 && hits[0]!.matched < WEAK_MATCH)
      weak = { closestServers: closestServers(catalog, hits) };
  }
  if (entries.length === 0) {
    const suggestions = catalog.search.suggest(trimmed.replace(/^select:/i, ''), 5);
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
    ...(weak ? { weak } : {}),
  };
}

export function renderSearchOutcome(query: string, outcome: SearchOutcome, notes: string[] = []): string {
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
        ? `Unknown tool names: ${outcome.unknownNames.join(', ')}. `
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
      `Unknown tool names (not loaded): ${outcome.unknownNames.join(', ')}. Search by keywords to find them.`,
    );
  }
  const weak = outcome.weak
    ? `No tool matched most of "${query}"; these are the nearest. Closest servers: ${outcome.weak.closestServers.join(', ')} (server:<name> lists one's tools).\n`
    : '';
  return `${weak}Loaded ${outcome.entries.length} tool${outcome.entries.length === 1 ? '' : 's'}; call ${
    outcome.entries.length === 1 ? 'it' : 'them'
  } directly from your next step:\n${lines.join('\n')}${tail}`;
}
