// Said once per agent dir, the first time a Pi session ends while servers it used run on in the
// shared host: where they live, until when, and how to end them. Without it, quitting Pi leaves a host
// and its servers running for minutes and nothing says so. Loaded only when a session leaves some.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { clockTime } from '../../commands/server-status.ts';
import { replaceAtomically } from '../../fs/atomic-file.ts';
import { HOST_IDLE_MS } from '../../host/host-server.ts';
import { hostDir } from '../../host/paths.ts';
import { ensurePrivateFolder } from '../../host/private-place.ts';

/** A server this session used through the host, as it ends. */
export interface LeftServer {
  name: string;
  hostPid: number;
  /** Its own idle timeout (0: none, the host's idle time applies). */
  idleTimeoutMs: number;
}

/** The marker that the notice was given in this agent dir. */
export const TOLD_FILE = 'told-servers-stay';

/** The notice, or undefined when it was given before in this agent dir (then it is not given again). */
export async function serversStayNotice(
  agentDir: string,
  left: LeftServer[],
  env: Record<string, string | undefined> = process.env,
  now = Date.now(),
): Promise<string | undefined> {
  if (left.length === 0) return undefined;
  const dir = hostDir(agentDir);
  const marker = join(dir, TOLD_FILE);
  if (existsSync(marker)) return undefined;
  try {
    ensurePrivateFolder(dir);
    await replaceAtomically(marker, `${new Date(now).toISOString()}\n`, { mode: 0o600 });
  } catch {
    // Not remembered: it may be said again next time, which is better than never.
  }
  const configured = Number(env.PI_MCP_ACTORS_HOST_IDLE_MS);
  const hostIdle = Number.isFinite(configured) && configured > 0 ? configured : HOST_IDLE_MS;
  const stays = Math.max(
    ...left.map((s) => (s.idleTimeoutMs > 0 ? Math.min(s.idleTimeoutMs, hostIdle) : hostIdle)),
  );
  const names = [...new Set(left.map((s) => s.name))].sort();
  const which = names.length === 1 ? `MCP server ${names[0]} stays` : `MCP servers ${names.join(', ')} stay`;
  return `${which} warm in the shared host (pid ${left[0]!.hostPid}) until about ${clockTime(now + stays)}, longer while another session uses ${names.length === 1 ? 'it' : 'them'}; \`pi-mcp-actors host\` shows them, \`pi-mcp-actors host stop\` ends them. (Said once.)`;
}
