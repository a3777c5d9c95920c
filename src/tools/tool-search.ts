// ToolSearch: the one always-active tool through which the model finds and loads deferred MCP tools.
// The description is built once per session and never changes (prompt caches depend on it); the
// answer (tool-search-answer.ts) lists what was loaded, one line each.

import type { CatalogEntry } from '../catalog/catalog.ts';

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
