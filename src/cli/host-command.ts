// `pi-mcp-actors host`: the shared host's clients and instances (without starting one);
// `host stop` stops it (SIGTERM: it closes its servers); `host serve` runs the host itself (what a
// session starts, detached).

import { homedir } from 'node:os';
import type { HostClient } from '../adapters/host/host-client.ts';
import { openHost, socketOf } from '../adapters/host/start-host.ts';
import { clockTime } from '../commands/server-status.ts';
import { agentDirFrom } from '../config/agent-dir.ts';
import { formatDuration, formatElapsed } from '../duration.ts';
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

export function renderHostStatus(status: HostStatus, now = Date.now()): string {
  const lines = [
    `Shared host ${status.build}, pid ${status.pid}, up ${formatElapsed(now - status.startedAt)}`,
    `Socket: ${status.socket}`,
  ];
  // This command is a client too: it is not listed.
  const clients = status.clients.filter((c) => !c.probe && c.label !== STATUS_LABEL);
  const sessions = clients.filter((c) => c.attachments > 0);
  // A session's line ready ahead of its first use (or between its servers): it holds nothing.
  const waiting = clients.filter((c) => c.attachments === 0);
  lines.push(whenItStops(status, sessions.length, now));
  lines.push(`Sessions attached: ${sessions.length}`);
  for (const c of sessions)
    lines.push(`  ${withPid(c.label, c.pid)}: ${c.attachments} server(s), ${c.inFlight} call(s) running`);
  if (waiting.length > 0)
    lines.push(`Connected, nothing attached: ${waiting.map((c) => withPid(c.label, c.pid)).join(', ')}`);
  lines.push(`Instances: ${status.instances.length}`);
  const byServer = new Map<string, HostStatus['instances']>();
  for (const i of status.instances) byServer.set(i.server, [...(byServer.get(i.server) ?? []), i]);
  for (const [server, copies] of byServer) {
    const indent = copies.length > 1 ? '    ' : '  ';
    if (copies.length > 1) {
      const differs = copies[0]?.differs ?? [];
      lines.push(
        `  ${copies.length} copies of ${server}: ${differs.length > 0 ? `they differ in ${differs.join(', ')}` : 'they differ in nothing the host can name'}`,
      );
    }
    for (const i of copies)
      lines.push(
        `${indent}${i.server} [${i.share}${i.project ? ` ${i.project}` : ''}] ${i.state}${i.pid ? `, pid ${i.pid}` : ''}: ${i.attached} attached, ${i.inFlight} in flight; tags ${i.tags.join(', ') || '—'} (${i.key})`,
      );
  }
  return lines.join('\n');
}

/** `stops at 09:12 (in 9 min) unless a session attaches`, or how long it stays. */
function whenItStops(status: HostStatus, sessions: number, now: number): string {
  const idle = status.idleMs === undefined ? '' : ` (then ${formatDuration(status.idleMs)} idle)`;
  if (status.stopsAt === undefined)
    return `Stays while ${sessions === 1 ? '1 session is' : `${sessions} sessions are`} attached${idle}.`;
  return `Stops at ${clockTime(status.stopsAt)} (in ${formatElapsed(status.stopsAt - now)}) unless a session attaches.`;
}

/** A client's label names its pid once (a default label already says `(pid N)`). */
function withPid(label: string, pid: number): string {
  return label.includes(`(pid ${pid})`) ? label : `${label} (pid ${pid})`;
}
