// Which servers `pi-mcp-actors call <name>` starts. A name the catalog (cache or a live listing) knows
// names its server, and only that one starts. An unknown name is looked for only in servers whose tools
// are not known yet: the one whose prefix the name carries, else (a name without a known prefix, e.g. a
// tool's own name typed without it) every such server.

import { serverPrefix } from '../catalog/naming.ts';
import type { ToolPrefix } from '../config/types.ts';

export interface CallCandidate {
  name: string;
  /** The server's tool prefix mode (its own, else the setting). */
  prefix: ToolPrefix;
  /** Its tools are known (cached or listed): a name it lacks is not its. */
  listed: boolean;
}

export function serversToLookIn(tool: string, servers: readonly CallCandidate[]): string[] {
  const owns = (s: CallCandidate) => {
    const prefix = serverPrefix(s.name, s.prefix);
    return prefix !== '' && tool.startsWith(`${prefix}__`);
  };
  const named = servers.filter(owns);
  if (named.length > 0) return named.filter((s) => !s.listed).map((s) => s.name);
  return servers.filter((s) => !s.listed).map((s) => s.name);
}
