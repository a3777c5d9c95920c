// MCP_DIRECT_TOOLS: `*` (every server), `__none__` (no direct tools), or a comma-separated list of
// `server` and `server/tool`.

import { diagnostic } from './diagnostics.ts';
import type { Diagnostic, DirectToolsSpec } from './types.ts';

export const DIRECT_TOOLS_ENV = 'MCP_DIRECT_TOOLS';

export function parseDirectToolsEnv(
  raw: string | undefined,
  diagnostics: Diagnostic[],
): DirectToolsSpec | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const items = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.includes('__none__')) {
    if (items.length > 1) {
      diagnostics.push(
        diagnostic(
          'warning',
          'invalid-direct-tools-env',
          `${DIRECT_TOOLS_ENV} mixes __none__ with other entries; no tool is direct.`,
          {
            fix: `Use either ${DIRECT_TOOLS_ENV}=__none__ or a list.`,
          },
        ),
      );
    }
    return { kind: 'none' };
  }
  if (items.includes('*')) return { kind: 'all' };
  const servers: string[] = [];
  const tools: Array<{ server: string; tool: string }> = [];
  for (const item of items) {
    const slash = item.indexOf('/');
    if (slash < 0) {
      if (!servers.includes(item)) servers.push(item);
      continue;
    }
    const server = item.slice(0, slash).trim();
    const tool = item.slice(slash + 1).trim();
    if (server === '' || tool === '') {
      diagnostics.push(
        diagnostic(
          'warning',
          'invalid-direct-tools-env',
          `${DIRECT_TOOLS_ENV} entry "${item}" is not "server" or "server/tool"; it is ignored.`,
          {
            fix: `Example: ${DIRECT_TOOLS_ENV}=github,filesystem/read_file`,
          },
        ),
      );
      continue;
    }
    if (!tools.some((t) => t.server === server && t.tool === tool)) tools.push({ server, tool });
  }
  return { kind: 'list', servers, tools };
}
