// A session runtime on a resolved config, for reliability tests and benchmarks: the real session
// actor, adapters and fixture servers; a host that records what it is told; tools known up front
// (an in-memory metadata cache), so a server that never connects still has tools to call.

import { createRuntime, type Runtime } from '../../src/actors/session-actor.ts';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { type CacheStore, cachedServerFromCatalog } from '../../src/catalog/cache.ts';
import type { CatalogEntry } from '../../src/catalog/catalog.ts';
import type { LoadedConfig, ServerDefinition } from '../../src/config/types.ts';
import { nullLogger } from '../../src/logger.ts';
import type { ToolDescriptor } from '../../src/ports/mcp.ts';
import { SecretValues } from '../../src/redact/index.ts';
import type { HostPort } from '../../src/session/host-port.ts';
import type { ToolResult } from '../../src/tools/executor.ts';
import { loadedConfig } from './config.ts';

const TOOL_NAMES = [
  'echo',
  'hang',
  'crash',
  'forget_sessions',
  'slow_echo',
  'big_output',
  'malformed_result',
];
export const KNOWN_TOOLS: ToolDescriptor[] = TOOL_NAMES.map((name) => ({
  name,
  description: `Fixture tool ${name}.`,
  inputSchema: { type: 'object' },
}));

/** A metadata cache that knows KNOWN_TOOLS for every server and keeps nothing. */
export function knownToolsCache(tools: ToolDescriptor[] = KNOWN_TOOLS): CacheStore {
  return {
    file: '(memory)',
    read: () => ({ servers: {}, diagnostics: [], found: true }),
    validEntry: (def) => cachedServerFromCatalog(def, { tools, resources: [] }),
    write: async () => {},
  };
}

export interface RecordingHost extends HostPort {
  notices: string[];
  status: string | undefined;
  registered: CatalogEntry[];
  toolSearchDescription?: string;
}

export function recordingHost(): RecordingHost {
  const host: RecordingHost = {
    notices: [],
    status: undefined,
    registered: [],
    registerTool: (entry) => host.registered.push(entry),
    registerToolSearch: (description) => {
      host.toolSearchDescription = description;
    },
    setActiveMcpTools() {},
    setStatus: (text) => {
      host.status = text;
    },
    notify: (message) => host.notices.push(message),
  };
  return host;
}

export async function startRuntime(
  servers: ServerDefinition[],
  options: {
    tempDir: string;
    settings?: Partial<LoadedConfig['settings']>;
    host?: HostPort;
    tools?: ToolDescriptor[];
  },
): Promise<Runtime> {
  const config = loadedConfig(servers, options.settings);
  const runtime = createRuntime({
    secrets: new SecretValues(),
    host: options.host ?? recordingHost(),
    connector: connectMcp,
    loadConfig: () => config,
    cache: knownToolsCache(options.tools),
    logger: nullLogger,
    tempDir: options.tempDir,
  });
  await runtime.start({ cwd: options.tempDir, projectTrusted: true });
  return runtime;
}

export const resultText = (r: ToolResult) =>
  r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
