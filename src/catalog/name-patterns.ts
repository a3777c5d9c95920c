// Patterns users write over tool names (approveTools, searchKeywords): a pattern may name the tool as
// its server does, as registered here (`<server>__<tool>`), or as pi-mcp-adapter registers it
// (`<server>_<tool>`, its short and `mcp__` forms), so an existing pi-mcp-adapter config keeps
// matching. `*` and `?` are globs.

import { matchesAny } from './glob.ts';

export function toolNameCandidates(server: string, tool: string, registered: string): string[] {
  const dotless = tool.replace(/\./g, '_');
  const prefixes = [server, server.replace(/-?mcp$/i, '') || 'mcp', `mcp__${server}`].map((p) =>
    p.replace(/[^A-Za-z0-9_]/g, '_'),
  );
  return [...new Set([tool, registered, ...prefixes.map((p) => `${p}_${dotless}`)])];
}

export function matchesToolPattern(
  tool: { server: string; tool: string; name: string },
  patterns: readonly string[],
): boolean {
  return toolNameCandidates(tool.server, tool.tool, tool.name).some((name) => matchesAny(name, patterns));
}
