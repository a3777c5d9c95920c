// Finds the shared host of this package version, or starts it: detached, in its own process group,
// outliving the session that started it. Two sessions starting it at once both end up on the one host
// that won the socket (src/host/exclusive-listen.ts); the loser exits by itself.

import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { ensurePrivateDir, hostSocketPath, packageVersion } from '../../host/paths.ts';
import type { InspectionRelay } from '../../inspect/deferred.ts';
import { packageFile } from '../../package-files.ts';
import type { Surface } from '../../tools/surface-words.ts';
import { HostClient, HostUnavailable } from './host-client.ts';

/** How long a session waits for a host it started to answer. */
const HOST_START_TIMEOUT_MS = 15_000;
const RETRY_EVERY_MS = 25;

export interface HostAddress {
  agentDir: string;
  version?: string;
  /** Shown by `pi-mcp-actors host` for this client. */
  label?: string;
  /** The session's inspection: while it is on, the host sends it the events of its instance actors. */
  inspection?: InspectionRelay;
  /** Whose words the host's errors are given in (the CLI names its own sign-in command). */
  surface?: Surface;
}

export function socketOf(address: HostAddress): string {
  return hostSocketPath(address.agentDir, address.version ?? packageVersion());
}

/** A client of the running host, starting one when none answers. */
export async function attachToHost(address: HostAddress): Promise<HostClient> {
  const version = address.version ?? packageVersion();
  const socket = hostSocketPath(address.agentDir, version);
  const label = address.label ?? defaultLabel();
  try {
    return hostUp(socket, await HostClient.open(socket, version, label, address));
  } catch (error) {
    if (isOtherVersion(error)) throw error;
  }
  const deadline = Date.now() + HOST_START_TIMEOUT_MS;
  let spawnedHere = false;
  for (;;) {
    // Not over a host this process started moments ago (startHostSoon) that is still coming up.
    if (!spawnedHere && !startingHost(socket)) {
      spawnHost(address.agentDir, version);
      spawnedHere = true;
    }
    try {
      return hostUp(socket, await HostClient.open(socket, version, label, address));
    } catch (error) {
      if (isOtherVersion(error) || Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
  }
}

/**
 * Starts the host in the background when none listens (the session's first request is on its way;
 * its first call then finds the host up). Nothing is attached: an unused host idles out as ever.
 */
export function startHostSoon(agentDir: string, version = packageVersion()): void {
  const socket = hostSocketPath(agentDir, version);
  const probe = connect(socket);
  probe.unref();
  probe.once('connect', () => {
    spawned.delete(socket);
    probe.destroy();
  });
  probe.once('error', () => {
    if (!startingHost(socket)) spawnHost(agentDir, version);
  });
}

/** When this process started a host that still runs and was not yet seen answering, per socket. */
const spawned = new Map<string, number>();

function hostUp(socket: string, client: HostClient): HostClient {
  spawned.delete(socket);
  return client;
}

function startingHost(socket: string): boolean {
  const at = spawned.get(socket);
  return at !== undefined && Date.now() - at < HOST_START_TIMEOUT_MS;
}

/** Runs `pi-mcp-actors host serve` detached; it exits by itself if another host already answers. */
export function spawnHost(agentDir: string, version: string): number | undefined {
  const socket = hostSocketPath(agentDir, version);
  const at = Date.now();
  spawned.set(socket, at);
  const child = spawn(process.execPath, [packageFile('bin', 'pi-mcp-actors.mjs'), 'host', 'serve'], {
    detached: true,
    stdio: 'ignore',
    cwd: agentDir,
    env: {
      ...process.env,
      PI_CODING_AGENT_DIR: agentDir,
      PI_MCP_ACTORS_HOST_VERSION: version,
      ...compileCache(socket),
    },
  });
  child.on('error', () => {});
  child.once('exit', () => {
    if (spawned.get(socket) === at) spawned.delete(socket);
  });
  child.unref();
  return child.pid;
}

/**
 * Node's compile cache (Node 22.1+; older ones ignore it) in the socket's private folder: a host's start
 * is mostly compiling its bundle, and the next host reads it compiled (each host writes it as it exits).
 */
function compileCache(socket: string): { NODE_COMPILE_CACHE?: string } {
  if (process.env.NODE_COMPILE_CACHE !== undefined) return {};
  try {
    ensurePrivateDir(dirname(socket));
    return { NODE_COMPILE_CACHE: join(dirname(socket), 'compile-cache') };
  } catch {
    return {};
  }
}

function isOtherVersion(error: unknown): boolean {
  return error instanceof HostUnavailable && error.message.includes('not used');
}

function defaultLabel(): string {
  const script = process.argv[1];
  return script ? `${basename(script)} (pid ${process.pid})` : `pid ${process.pid}`;
}
