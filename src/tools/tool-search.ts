// ToolSearch: the one always-active tool through which the model finds and loads deferred MCP tools.
// The description is built once per session and never changes (prompt caches depend on it); the
// answer lists what was loaded, one line each.

import type { Catalog, CatalogEntry } from '../catalog/catalog.ts';
import { plainText } from '../catalog/terminal-text.ts';

export const TOOL_SEARCH_NAME = 'ToolSearch';
export const SEARCH_LIMIT = 5;
/** Up to this many deferred tools, the description lists tools; above it, servers. */
export const LIST_TOOLS_UP_TO = 8;
/** Above this many servers, the description names servers without their one-line summaries. */
export const COMPACT_ABOVE_SERVERS = 30;

export const toolSearchParameters = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'Keywords, or select:name1,name2 for exact names' },
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

const GENERIC_WORDS = new Set(
  'a an and the of to in for on by with from get set list create update delete add remove read write run tool tools mcp api by id ids new all info data'.split(
    ' ',
  ),
);

function singular(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('s') && !word.endsWith('ss') && word.length > 3) return word.slice(0, -1);
  return word;
}

/** The words that say most about a server's tools: frequent in their names, not generic verbs. */
export function serverKeywords(server: string, toolNames: string[], max = 4): string[] {
  const own = new Set(server.toLowerCase().split(/[^a-z0-9]+/));
  const counts = new Map<string, number>();
  for (const name of toolNames) {
    const words = new Set(
      name
        .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter((w) => w.length > 2 && !GENERIC_WORDS.has(w) && !own.has(w) && !/^\d+$/.test(w)),
    );
    for (const w of new Set([...words].map(singular))) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, max)
    .map(([w]) => w);
}

/** The one line shown for a server in the description: its configured description, else keywords. */
export function serverLine(
  server: string,
  description: string | undefined,
  toolNames: string[],
): string | undefined {
  if (description) return oneLine(description, 50);
  const words = serverKeywords(server, toolNames);
  return words.length > 0 ? words.join(', ') : undefined;
}

export type SearchOutcome =
  | { kind: 'loaded'; entries: CatalogEntry[]; alreadyActive: string[]; unknownNames?: string[] }
  | { kind: 'none'; suggestions: string[]; unknownNames?: string[] };

export function searchCatalog(
  catalog: Catalog,
  query: string,
  active: ReadonlySet<string>,
  isAvailable: (entry: CatalogEntry) => boolean = () => true,
): SearchOutcome {
  const trimmed = query.trim();
  let entries: CatalogEntry[];
  let unknownNames: string[] | undefined;
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
    entries = catalog.search
      .search(trimmed, SEARCH_LIMIT * 2)
      .map((hit) => catalog.byName.get(hit.name))
      .filter((e): e is CatalogEntry => e !== undefined && isAvailable(e))
      .slice(0, SEARCH_LIMIT);
  }
  if (entries.length === 0) {
    const suggestions = catalog.search.suggest(trimmed.replace(/^select:/i, ''), 5);
    return unknownNames ? { kind: 'none', suggestions, unknownNames } : { kind: 'none', suggestions };
  }
  return {
    kind: 'loaded',
    entries,
    alreadyActive: entries.filter((e) => active.has(e.name)).map((e) => e.name),
    // A select: with a typo among good names must say so, or the model calls a tool that is not there.
    ...(unknownNames && unknownNames.length > 0 ? { unknownNames } : {}),
  };
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
  if (outcome.kind === 'none') {
    const unknown =
      outcome.unknownNames && outcome.unknownNames.length > 0
        ? `Unknown tool names: ${listNames(outcome.unknownNames)}. `
        : '';
    const close = outcome.suggestions.length > 0 ? `Close names: ${outcome.suggestions.join(', ')}. ` : '';
    return `${unknown}No tools matched "${query}". ${close}Try other keywords, or select:<exact name>.${tail}`;
  }
  const lines = outcome.entries.map(
    (e) => `- ${e.name}: ${oneLine(e.description, 100) || '(no description)'}`,
  );
  if (outcome.unknownNames) {
    lines.push(
      `Unknown tool names (not loaded): ${listNames(outcome.unknownNames)}. Search by keywords to find them.`,
    );
  }
  return `Loaded ${outcome.entries.length} tool${outcome.entries.length === 1 ? '' : 's'}; call ${
    outcome.entries.length === 1 ? 'it' : 'them'
  } directly from your next step:\n${lines.join('\n')}${tail}`;
}
