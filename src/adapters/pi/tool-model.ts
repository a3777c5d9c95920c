// How our MCP tools enter Pi 1.5's own tool model (docs/extensions.md "Tool Exposure"):
// - `direct` tools are Pi `direct` (declared and active from registration);
// - every other tool is Pi `deferred`: not declared until ToolSearch activates it, yet callable at
//   any time from Pi's codemode scripts and `ctx.executeTool` (both `deferred` and `codemode` config
//   exposures; Pi's built-in MCP registers its `codemode` servers the same way);
// - one `namespace` per server, so codemode's `describeNamespace()` and `searchTools({ namespace })`
//   find a server's tools by its name or `mcp__<server>`;
// - the server's MCP tool `annotations` (resources and resource templates are read-only), for permission extensions.

import type { CatalogEntry } from '../../catalog/catalog.ts';
import type { ServerDefinition } from '../../config/types.ts';

export type PiExposure = 'direct' | 'model-only' | 'codemode' | 'deferred' | 'hidden';

export interface PiNamespace {
  name: string;
  aliases?: string[];
  description?: string;
}

export interface PiToolModel {
  exposure: PiExposure;
  namespace: PiNamespace;
  annotations?: Record<string, unknown>;
}

/** Pi's built-in codemode tool, activated when a server asks for `codemode` exposure. */
export const PI_CODEMODE_TOOL = 'codemode';

export function piToolModel(entry: CatalogEntry, server: ServerDefinition | undefined): PiToolModel {
  const namespace: PiNamespace = { name: entry.server, aliases: [`mcp__${entry.server}`] };
  if (server?.description) namespace.description = server.description;
  const annotations = entry.kind === 'tool' ? entry.annotations : { readOnlyHint: true };
  return {
    exposure: entry.exposure === 'direct' ? 'direct' : 'deferred',
    namespace,
    ...(annotations ? { annotations } : {}),
  };
}

/** Whether a server wants its tools reached through Pi's codemode scripts. */
export function wantsCodemode(servers: readonly ServerDefinition[]): boolean {
  return servers.some(
    (s) => s.exposure === 'codemode' || s.toolExposure.some((rule) => rule.exposure === 'codemode'),
  );
}
