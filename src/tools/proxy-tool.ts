// The optional `mcp` gateway tool (settings.proxyTool): one stable tool for models that cope badly
// with a changing tool set. Mode by argument, in this priority: tool > connect > describe > search >
// server > status.

import type { Runtime } from '../actors/session-actor.ts';
import { searchIndexOf } from '../catalog/search.ts';
import { describeServers } from '../commands/server-status.ts';
import { unreadableText } from '../config/unreadable.ts';
import { ensureConnected } from '../session/ensure-connected.ts';
import type { ToolResult } from './executor.ts';
import { errorResult } from './executor.ts';
import { summarizeParameters } from './param-summary.ts';
import { oneLine } from './tool-search.ts';

export const PROXY_TOOL_NAME = 'mcp';

export const proxyToolDescription =
  'Gateway to MCP servers. No arguments: status. server: list its tools. search: find tools. ' +
  "describe: a tool's parameters. connect: connect a server. tool + args (JSON object string): call a tool.";

export const proxyToolParameters = {
  type: 'object',
  properties: {
    tool: { type: 'string', description: 'Tool to call (name as listed)' },
    args: { type: 'string', description: 'Arguments for tool, as a JSON object string' },
    connect: { type: 'string', description: 'Server to connect' },
    describe: { type: 'string', description: 'Tool to describe' },
    search: { type: 'string', description: 'Keywords to search tools' },
    server: { type: 'string', description: 'Server whose tools to list' },
  },
} as const;

export interface ProxyParams {
  tool?: string;
  args?: string | Record<string, unknown>;
  connect?: string;
  describe?: string;
  search?: string;
  server?: string;
}

const text = (t: string): ToolResult => ({ content: [{ type: 'text', text: t }], details: {} });

function parseArgs(args: ProxyParams['args']): Record<string, unknown> | string {
  if (args === undefined || args === '') return {};
  if (typeof args === 'object') return args;
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
    return 'args must be a JSON object, e.g. {"path": "README.md"}';
  } catch (error) {
    return `args is not valid JSON (${(error as Error).message}); pass a JSON object string, e.g. {"path": "README.md"}`;
  }
}

export async function runProxyTool(
  runtime: Runtime,
  params: ProxyParams,
  signal?: AbortSignal,
): Promise<ToolResult> {
  const catalog = runtime.catalog();
  const { secrets } = runtime;
  if (params.tool) {
    const entry = catalog.byName.get(params.tool);
    if (!entry) {
      const close = searchIndexOf(catalog).suggest(params.tool, 5);
      return errorResult(
        `Unknown tool "${params.tool}".${close.length ? ` Close names: ${close.join(', ')}.` : ''} Use search to find tools.`,
        secrets,
      );
    }
    const args = parseArgs(params.args);
    if (typeof args === 'string')
      return errorResult(`${args}\n${summarizeParameters(entry.inputSchema)}`, secrets);
    return runtime.callTool(entry.name, args, signal);
  }
  if (params.connect) {
    const ref = runtime.servers()[params.connect];
    if (!ref) return errorResult(`Unknown or disabled server "${params.connect}".`, secrets);
    const result = await ensureConnected(ref, signal ? { signal } : {});
    if (!result.ok) return errorResult(result.error.message, secrets);
    return text(describeServers({ [params.connect]: ref }, { secrets }));
  }
  if (params.describe) {
    const entry = catalog.byName.get(params.describe);
    if (!entry) return errorResult(`Unknown tool "${params.describe}". Use search to find tools.`, secrets);
    return text(
      `${entry.name} (server ${entry.server})\n${entry.description}\n${summarizeParameters(entry.inputSchema)}`,
    );
  }
  if (params.search) {
    const hits = searchIndexOf(catalog).search(params.search, 12);
    if (hits.length === 0) return text(`No tools matched "${params.search}".`);
    return text(
      hits
        .map((h) => catalog.byName.get(h.name))
        .filter((e) => e !== undefined)
        .map((e) => `- ${e.name}: ${oneLine(e.description, 100)}`)
        .join('\n'),
    );
  }
  if (params.server) {
    const entries = catalog.entries.filter((e) => e.server === params.server);
    if (entries.length === 0)
      return text(`No known tools for "${params.server}". Try connect: "${params.server}".`);
    return text(entries.map((e) => `- ${e.name}: ${oneLine(e.description, 100)}`).join('\n'));
  }
  return text(
    describeServers(runtime.servers(), { secrets }) ||
      unreadableText(runtime.actor.getSnapshot().context.config?.diagnostics) ||
      'No MCP servers configured.',
  );
}
