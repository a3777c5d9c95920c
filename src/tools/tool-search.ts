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
