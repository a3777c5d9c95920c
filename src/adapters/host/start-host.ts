// Finds this build's shared host, or starts it: detached, in its own process group, outliving the
// session that started it. Two sessions starting it at once both end up on the one host that won the
// socket (src/host/exclusive-listen.ts); the loser exits by itself. Before anything is sent, the host's
// folder, key and socket are checked (src/host/host-place.ts) and the host proves the key
// (./host-client.ts); a host that is silent, foreign or of another build is never waited for.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { buildIdentity } from '../../host/build-identity.ts';
import { type HostPlace, prepareHostPlace } from '../../host/host-place.ts';
import { hostSocketPath } from '../../host/paths.ts';
import { checkSocket, ensurePrivateFolder, HostPlaceError } from '../../host/private-place.ts';
import type { InspectionRelay } from '../../inspect/deferred.ts';
import { packageFile } from '../../package-files.ts';
import type { Surface } from '../../ports/surface-words.ts';
import { HostClient, HostUnavailable } from './host-client.ts';
import { HOST_START_DEADLINE_MS, HOST_START_RETRY_MS } from './link-deadlines.ts';

export interface HostAddress {
  agentDir: string;
  /** The build whose host is meant (default: this one's, src/host/build-identity.ts). */
  build?: string;
  /** Shown by `pi-mcp-actors host` for this client. */
  label?: string;
  /** The session's inspection: while it is on, the host sends it the events of its instance actors. */
  inspection?: InspectionRelay;
  /** Whose words the host's errors are given in (the CLI names its own sign-in command). */
  surface?: Surface;
}

export function socketOf(address: HostAddress): string {
  return hostSocketPath(address.agentDir, address.build ?? buildIdentity());
}

/** A client of the running host of this build, without starting one. */
export function openHost(address: HostAddress): Promise<HostClient> {
  return openAt(address, placeOf(address));
}

/** A client of the running host, starting one when none is there. */
export async function attachToHost(address: HostAddress): Promise<HostClient> {
  const place = placeOf(address);
  const socket = place.socketPath;
  try {
    return hostUp(socket, await openAt(address, place));
  } catch (error) {
    if (!isAbsent(error)) throw error;
  }
  const deadline = Date.now() + HOST_START_DEADLINE_MS;
  let started: StartedHost | undefined;
  for (;;) {
    // Not over a host this process started moments ago (startHostSoon) that is still coming up.
    if (!started && !startingHost(socket)) started = spawnHost(address.agentDir, buildOf(address));
    await new Promise((resolve) => setTimeout(resolve, HOST_START_RETRY_MS));
    // A host that exited before this try: a try after its exit found none either (the loser of a race
    // exits too, but only once the winner listens).
    const exitedBefore = started?.exitCode() !== undefined;
    try {
      return hostUp(socket, await openAt(address, place));
    } catch (error) {
      if (!isAbsent(error)) throw error;
      if (exitedBefore)
        throw new HostUnavailable(
          `the shared host could not start (it exited with code ${started?.exitCode()})`,
          'absent',
        );
      if (Date.now() > deadline)
        throw new HostUnavailable(
          `no shared host answered within ${HOST_START_DEADLINE_MS / 1000} s of starting one`,
          'absent',
        );
    }
  }
}

/**
 * Starts the host in the background when none listens (the session's first request is on its way;
 * its first call then finds the host up). Nothing is attached: an unused host idles out as ever. A
 * place that is not the user's alone starts nothing (the first call says why).
 */
export function startHostSoon(agentDir: string, build = buildIdentity()): void {
  let socket: string;
  try {
    if (!existsSync(agentDir)) return;
    socket = prepareHostPlace(agentDir, build).socketPath;
  } catch {
    return;
  }
  const probe = connect(socket);
  probe.unref();
  probe.once('connect', () => {
    spawned.delete(socket);
    probe.destroy();
  });
  probe.once('error', () => {
    if (!startingHost(socket)) spawnHost(agentDir, build);
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
  return at !== undefined && Date.now() - at < HOST_START_DEADLINE_MS;
}

export interface StartedHost {
  pid: number | undefined;
  /** Its exit code once it has exited (a signal counts as 1), else undefined. */
  exitCode(): number | undefined;
}

/** Runs `pi-mcp-actors host serve` detached; it exits by itself if another host already answers. */
export function spawnHost(agentDir: string, build: string): StartedHost {
  const socket = hostSocketPath(agentDir, build);
  const at = Date.now();
  spawned.set(socket, at);
  const child = spawn(process.execPath, [packageFile('bin', 'pi-mcp-actors.mjs'), 'host', 'serve'], {
    detached: true,
    stdio: 'ignore',
    cwd: agentDir,
    env: {
      ...process.env,
      PI_CODING_AGENT_DIR: agentDir,
      PI_MCP_ACTORS_HOST_BUILD: build,
      ...compileCache(socket),
    },
  });
  let code: number | undefined;
  child.on('error', () => {
    code ??= 1;
  });
  child.on('exit', (exitCode) => {
    code = exitCode ?? 1;
    if (spawned.get(socket) === at) spawned.delete(socket);
  });
  child.unref();
  return { pid: child.pid, exitCode: () => code };
}

/**
 * Node's compile cache (Node 22.1+; older ones ignore it) in the socket's private folder: a host's start
 * is mostly compiling its bundle, and the next host reads it compiled (each host writes it as it exits).
 */
function compileCache(socket: string): { NODE_COMPILE_CACHE?: string } {
  if (process.env.NODE_COMPILE_CACHE !== undefined) return {};
  try {
    ensurePrivateFolder(dirname(socket));
    return { NODE_COMPILE_CACHE: join(dirname(socket), 'compile-cache') };
  } catch {
    return {};
  }
}

function buildOf(address: HostAddress): string {
  return address.build ?? buildIdentity();
}

/** The host's folder, key and socket path, checked: a place that is not the user's alone is refused. */
function placeOf(address: HostAddress): HostPlace {
  // Not made here: a session whose agent dir was deleted must not bring it back.
  if (!existsSync(address.agentDir))
    throw new HostUnavailable(`the agent dir ${address.agentDir} does not exist`, 'no-agent-dir');
  try {
    return prepareHostPlace(address.agentDir, buildOf(address));
  } catch (error) {
    if (error instanceof HostPlaceError) throw new HostUnavailable(error.message, 'refused');
    throw error;
  }
}

function openAt(address: HostAddress, place: HostPlace): Promise<HostClient> {
  try {
    // Checked before every connect: a socket may have appeared since the place was checked.
    checkSocket(place.socketPath);
  } catch (error) {
    if (error instanceof HostPlaceError) return Promise.reject(new HostUnavailable(error.message, 'refused'));
    throw error;
  }
  return HostClient.open(place.socketPath, {
    build: buildOf(address),
    key: place.key,
    label: address.label ?? defaultLabel(),
    ...(address.inspection ? { inspection: address.inspection } : {}),
    ...(address.surface ? { surface: address.surface } : {}),
  });
}

function isAbsent(error: unknown): boolean {
  return error instanceof HostUnavailable && error.why === 'absent';
}

function defaultLabel(): string {
  const script = process.argv[1];
  return script ? `${basename(script)} (pid ${process.pid})` : `pid ${process.pid}`;
}
