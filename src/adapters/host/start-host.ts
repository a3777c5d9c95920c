// Finds this build's shared host, or starts it: detached, in its own process group, outliving the
// session that started it. Two sessions starting it at once both end up on the one host that won the
// socket (src/host/exclusive-listen.ts); the loser exits by itself. Before anything is sent, the host's
// folder, key and socket are checked (src/host/host-place.ts) and the host proves the key
// (./host-client.ts); a host that is silent, foreign or of another build is never waited for.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { buildIdentity } from '../../host/build-identity.ts';
import { type HostPlace, prepareHostPlace } from '../../host/host-place.ts';
import { hostSocketPath } from '../../host/paths.ts';
import { checkSocket, HostPlaceError } from '../../host/private-place.ts';
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
  try {
    return await openAt(address, place);
  } catch (error) {
    if (!isAbsent(error)) throw error;
  }
  const started = spawnHost(address.agentDir, buildOf(address));
  const deadline = Date.now() + HOST_START_DEADLINE_MS;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, HOST_START_RETRY_MS));
    // A host that exited before this try: a try after its exit found none either (the loser of a race
    // exits too, but only once the winner listens).
    const exitedBefore = started.exitCode() !== undefined;
    try {
      return await openAt(address, place);
    } catch (error) {
      if (!isAbsent(error)) throw error;
      if (exitedBefore)
        throw new HostUnavailable(
          `the shared host could not start (it exited with code ${started.exitCode()})`,
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

export interface StartedHost {
  pid: number | undefined;
  /** Its exit code once it has exited (a signal counts as 1), else undefined. */
  exitCode(): number | undefined;
}

/** Runs `pi-mcp-actors host serve` detached; it exits by itself if another host already answers. */
export function spawnHost(agentDir: string, build: string): StartedHost {
  const child = spawn(process.execPath, [packageFile('bin', 'pi-mcp-actors.mjs'), 'host', 'serve'], {
    detached: true,
    stdio: 'ignore',
    cwd: agentDir,
    env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_MCP_ACTORS_HOST_BUILD: build },
  });
  let code: number | undefined;
  child.on('error', () => {
    code ??= 1;
  });
  child.on('exit', (exitCode) => {
    code = exitCode ?? 1;
  });
  child.unref();
  return { pid: child.pid, exitCode: () => code };
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
