// `pi-mcp-actors host`: the shared host's clients and instances (without starting one);
// `pi-mcp-actors host serve` runs the host itself (what a session starts, detached).

import { homedir } from 'node:os';
import { HostClient } from '../adapters/host/host-client.ts';
import { agentDirFrom } from '../config/agent-dir.ts';
import { hostSocketPath, packageVersion } from '../host/paths.ts';
import type { HostStatus } from '../host/protocol.ts';

const STATUS_LABEL = 'pi-mcp-actors host';

export interface HostCommandIo {
  out(text: string): void;
  err(text: string): void;
}

export async function runHostCommand(
  positional: string[],
  json: boolean,
  io: HostCommandIo,
): Promise<number> {
  if (positional[0] === 'serve') {
    const { serveHost } = await import('../host/host-process.ts');
    await serveHost();
    return 0;
  }
  if (positional.length > 0) {
    io.err(`Unknown host command "${positional[0]}" (host | host serve)`);
    return 2;
  }
  const version = packageVersion();
  const socket = hostSocketPath(agentDirFrom(process.env, homedir()), version);
  let client: HostClient;
  try {
    client = await HostClient.open(socket, version, STATUS_LABEL);
  } catch (error) {
    if (json) io.out(JSON.stringify({ running: false, socket, version }));
    else
      io.out(
        `No shared host is running (version ${version}, socket ${socket}).\n${(error as Error).message}`,
      );
    return 0;
  }
  try {
    const status = await client.status();
    io.out(json ? JSON.stringify({ running: true, ...status }, null, 2) : renderHostStatus(status));
    return 0;
  } finally {
    client.close();
  }
}

export function renderHostStatus(status: HostStatus): string {
  const lines = [
    `Shared host ${status.version}, pid ${status.pid}, up ${Math.round((Date.now() - status.startedAt) / 1000)} s`,
    `Socket: ${status.socket}`,
  ];
  // This command is a client too: it is not listed.
  const sessions = status.clients.filter((c) => c.label !== STATUS_LABEL);
  lines.push(`Sessions attached: ${sessions.length}`);
  for (const c of sessions)
    lines.push(`  ${c.label} (pid ${c.pid}): ${c.attachments} server(s), ${c.inFlight} call(s) running`);
  lines.push(`Instances: ${status.instances.length}`);
  for (const i of status.instances)
    lines.push(
      `  ${i.server} [${i.share}${i.project ? ` ${i.project}` : ''}] ${i.state}${i.pid ? `, pid ${i.pid}` : ''}: ${i.attached} attached, ${i.inFlight} in flight (${i.key})`,
    );
  return lines.join('\n');
}
