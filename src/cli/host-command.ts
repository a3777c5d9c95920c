// `pi-mcp-actors host`: the shared host's clients and instances (without starting one);
// `host stop` stops it (SIGTERM: it closes its servers); `host serve` runs the host itself (what a
// session starts, detached).

import { homedir } from 'node:os';
import type { HostClient } from '../adapters/host/host-client.ts';
import { openHost, socketOf } from '../adapters/host/start-host.ts';
import { agentDirFrom } from '../config/agent-dir.ts';
import { buildIdentity } from '../host/build-identity.ts';
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
  const stop = positional[0] === 'stop';
  if (positional.length > (stop ? 1 : 0)) {
    io.err(`Unknown host command "${positional.join(' ')}" (host | host stop | host serve)`);
    return 2;
  }
  const build = buildIdentity();
  const agentDir = agentDirFrom(process.env, homedir());
  const socket = socketOf({ agentDir, build });
  let client: HostClient;
  try {
    client = await openHost({ agentDir, build, label: STATUS_LABEL });
  } catch (error) {
    if (json) io.out(JSON.stringify({ running: false, socket, build, why: (error as Error).message }));
    else io.out(`No shared host is running (build ${build}, socket ${socket}).\n${(error as Error).message}`);
    return 0;
  }
  try {
    const status = await client.status();
    if (stop) {
      // Its sessions see their shared servers close and start a new host at their next call.
      process.kill(status.pid, 'SIGTERM');
      io.out(`Stopped the shared host (pid ${status.pid}).`);
      return 0;
    }
    io.out(json ? JSON.stringify({ running: true, ...status }, null, 2) : renderHostStatus(status));
    return 0;
  } finally {
    client.close();
  }
}

export function renderHostStatus(status: HostStatus): string {
  const lines = [
    `Shared host ${status.build}, pid ${status.pid}, up ${Math.round((Date.now() - status.startedAt) / 1000)} s`,
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
      `  ${i.server} [${i.share}${i.project ? ` ${i.project}` : ''}] ${i.state}${i.pid ? `, pid ${i.pid}` : ''}: ${i.attached} attached, ${i.inFlight} in flight; tags ${i.tags.join(', ') || '—'} (${i.key})`,
    );
  return lines.join('\n');
}
