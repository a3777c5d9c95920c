// Helpers for the end-to-end tests of OUR extension (pi-mcp-actors) in the real Pi: how to load it,
// mcp.json entries for the fixture servers, reading what ToolSearch answered, a hand-written metadata
// cache, and finding (and, as a safety net, stopping) the server processes a test caused.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { cachedServerFromCatalog, createCacheStore } from '../../../src/catalog/cache.ts';
import { loadConfig } from '../../../src/config/load.ts';
import type { ToolDescriptor } from '../../../src/ports/mcp.ts';
import { fixtureArgs } from '../../fixtures/servers/spawn.ts';
import type { AgentDir } from './agent-dir.ts';
import { type ChatRequestBody, toolNames, toolResultMessages } from './fake-llm.ts';
import { killPids, type ProcInfo, processesMatching } from './processes.ts';

/** Our extension's entry point, as `-e` takes it. */
export const EXTENSION = join(import.meta.dirname, '..', '..', '..', 'src', 'index.ts');
/** The package folder: Pi finds the entry point through package.json `pi.extensions`. */
export const EXTENSION_PACKAGE = join(import.meta.dirname, '..', '..', '..');
/** Pi's default active built-in tools. */
export const BUILTINS = ['read', 'bash', 'edit', 'write'];
export const TOOL_SEARCH = 'ToolSearch';
/** Tool names Pi's built-in MCP would add (none may ever reach the model next to ours). */
export const BUILTIN_MCP_TOOL = /^(mcp__|tool_search$|codemode$|list_mcp_resources$|read_mcp_resource$)/;

/** A token unique to this test run, put into server argv so their processes can be found in /proc. */
export function uniqueMarker(label: string): string {
  return `e2e-${label}-${randomBytes(4).toString('hex')}`;
}

/** An mcp.json entry for the stdio fixture server; `marker` (its `--name`) tags its processes. */
export function stdioEntry(
  marker: string,
  flags: string[] = [],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    command: process.execPath,
    args: [...fixtureArgs('stdio-server'), '--name', marker, ...flags],
    ...extra,
  };
}

/** Live processes whose argv contains `marker` (servers of one test, wherever they are parented now). */
export function markedProcesses(marker: string): ProcInfo[] {
  return processesMatching((p) => p.cmdline.includes(marker));
}

/** Safety net for afterEach: SIGKILL every live process tagged with one of the markers, by pid. */
export function killMarked(...markers: string[]): void {
  for (const marker of markers) killPids(markedProcesses(marker).map((p) => p.pid));
}

/** The text of the last `role: "tool"` message of a request. */
export function lastToolResult(body: ChatRequestBody): string {
  return toolResultMessages(body).at(-1)?.content ?? '';
}

/** The tool result for one call id, as the model reads it. */
export function toolResultFor(body: ChatRequestBody, toolCallId: string): string | undefined {
  return toolResultMessages(body).find((m) => m.toolCallId === toolCallId)?.content;
}

/** Names a ToolSearch answer says it loaded (`- name: description` lines after `Loaded N tool(s)`). */
export function loadedByToolSearch(text: string): string[] {
  if (!/^Loaded \d+ tools?/.test(text)) return [];
  return [...text.matchAll(/^- ([A-Za-z0-9_-]+): /gm)].map((m) => m[1]!);
}

/** Tools of `body` that `before` did not declare, in order. */
export function addedTools(body: ChatRequestBody, before: ChatRequestBody): string[] {
  const old = new Set(toolNames(before));
  return toolNames(body).filter((n) => !old.has(n));
}

/**
 * Writes `<agentDir>/mcp-cache.json` as a previous session would have: entries keyed by the hash of
 * each server's resolved definition (loaded from the world's mcp.json exactly as the extension does).
 */
export async function writeWarmCache(dir: AgentDir, tools: Record<string, ToolDescriptor[]>): Promise<void> {
  const config = loadConfig({
    agentDir: dir.agentDir,
    cwd: dir.projectDir,
    homeDir: dir.home,
    env: { ...dir.env },
    projectTrusted: false,
  });
  const updates: Parameters<ReturnType<typeof createCacheStore>['write']>[0] = {};
  for (const [name, list] of Object.entries(tools)) {
    const def = config.servers.find((d) => d.name === name);
    if (!def) throw new Error(`writeWarmCache: no server "${name}" in ${dir.agentDir}/mcp.json`);
    updates[name] = cachedServerFromCatalog(def, { tools: list, resources: [] });
  }
  await createCacheStore({ file: join(dir.agentDir, 'mcp-cache.json') }).write(updates);
}

/** The fixture server's `echo` and `add` tools, as it lists them. */
export const FIXTURE_TOOLS = {
  echo: {
    name: 'echo',
    description: 'Echoes the text back.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  add: {
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    annotations: { readOnlyHint: true },
  },
} satisfies Record<string, ToolDescriptor>;

/** The three request bodies of a search → call → answer conversation (there must be exactly three). */
export function threeRequests(llm: {
  requests: ReadonlyArray<{ body: unknown }>;
}): [ChatRequestBody, ChatRequestBody, ChatRequestBody] {
  if (llm.requests.length !== 3) throw new Error(`expected 3 model requests, got ${llm.requests.length}`);
  return llm.requests.map((r) => r.body) as [ChatRequestBody, ChatRequestBody, ChatRequestBody];
}
