// ToolSearch: the one always-active tool through which the model finds and loads deferred MCP tools.
// The description is built once per session and never changes (prompt caches depend on it); the
// answer lists what was loaded, one line each.

import type { Catalog, CatalogEntry } from '../catalog/catalog.ts';

export const TOOL_SEARCH_NAME = 'ToolSearch';
export const SEARCH_LIMIT = 5;
/** Up to this many deferred tools, the description lists tools; above it, servers. */
export const LIST_TOOLS_UP_TO = 8;

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
  const lines = servers.map((s) => {
    const count = s.toolCount === undefined ? '?' : String(s.toolCount);
    return `- ${s.name} (${count})${s.line ? `: ${s.line}` : ''}`;
  });
  return [head, 'Servers (tool count):', ...lines].join('\n');
}

/** The one line shown for a server in the description. */
export function serverLine(description: string | undefined, toolNames: string[]): string | undefined {
  if (description) return oneLine(description, 50);
  if (toolNames.length === 0) return undefined;
  const shown = toolNames.slice(0, 3).join(', ');
  return toolNames.length > 3 ? `${shown}…` : shown;
}

export type SearchOutcome =
  | { kind: 'loaded'; entries: CatalogEntry[]; alreadyActive: string[] }
  | { kind: 'none'; suggestions: string[]; unknownNames?: string[] };

export function searchCatalog(catalog: Catalog, query: string, active: ReadonlySet<string>): SearchOutcome {
  const trimmed = query.trim();
  let entries: CatalogEntry[];
  let unknownNames: string[] | undefined;
  if (/^select:/i.test(trimmed)) {
    const names = trimmed
      .slice('select:'.length)
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    entries = names.map((n) => catalog.byName.get(n)).filter((e): e is CatalogEntry => e !== undefined);
    unknownNames = names.filter((n) => !catalog.byName.has(n));
  } else {
    entries = catalog.search
      .search(trimmed, SEARCH_LIMIT)
      .map((hit) => catalog.byName.get(hit.name))
      .filter((e): e is CatalogEntry => e !== undefined);
  }
  if (entries.length === 0) {
    const suggestions = catalog.search.suggest(trimmed.replace(/^select:/i, ''), 5);
    return unknownNames ? { kind: 'none', suggestions, unknownNames } : { kind: 'none', suggestions };
  }
  return {
    kind: 'loaded',
    entries,
    alreadyActive: entries.filter((e) => active.has(e.name)).map((e) => e.name),
  };
}

export function renderSearchOutcome(query: string, outcome: SearchOutcome, notes: string[] = []): string {
  const tail = notes.length > 0 ? `\n${notes.join('\n')}` : '';
  if (outcome.kind === 'none') {
    const unknown =
      outcome.unknownNames && outcome.unknownNames.length > 0
        ? `Unknown tool names: ${outcome.unknownNames.join(', ')}. `
        : '';
    const close =
      outcome.suggestions.length > 0 ? `Close names: ${outcome.suggestions.join(', ')}. ` : '';
    return `${unknown}No tools matched "${query}". ${close}Try other keywords, or select:<exact name>.${tail}`;
  }
  const lines = outcome.entries.map((e) => `- ${e.name}: ${oneLine(e.description, 100) || '(no description)'}`);
  return `Loaded ${outcome.entries.length} tool${outcome.entries.length === 1 ? '' : 's'}; call ${
    outcome.entries.length === 1 ? 'it' : 'them'
  } directly from your next step:\n${lines.join('\n')}${tail}`;
}
