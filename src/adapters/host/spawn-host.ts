// Starting the shared host's process, and hearing when it listens. `pi-mcp-actors host serve` runs
// detached (its own session and process group, outliving the session that started it); it writes one
// line on a pipe (fd HOST_READY_FD) once it listens, so a session waiting for it connects at that
// moment instead of at its next try. Light on purpose: a Pi session loads it as its first model request
// is prepared, to start the host once that request is on its way (nothing of the host client or XState),
// and to give it a birth line (src/host/birth-line.ts) that carries the session's first words.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { BIRTH_LINE_ENV, pairedLine } from '../../host/birth-line.ts';
import { buildIdentity } from '../../host/build-identity.ts';
import { type HostPlace, prepareHostPlace } from '../../host/host-place.ts';
import { hostSocketPath } from '../../host/paths.ts';
import { ensurePrivateFolder } from '../../host/private-place.ts';
import { HOST_READY_FD, HOST_READY_LINE } from '../../host/ready-signal.ts';
import { hostCommand } from '../../host/startup-snapshot.ts';
import { greetAhead, keepBirthLine } from './line-ahead.ts';

export type HostProcessEvent = { type: 'LISTENING' } | { type: 'EXITED'; code: number };

export interface StartedHost {
  pid: number | undefined;
  /**
   * Hears when it listens or exits, from now on; returns the unsubscribe. While someone `holds`
   * (the default), the host coming up keeps this process alive.
   */
  follow(listener: (event: HostProcessEvent) => void, holds?: boolean): () => void;
}

/** The hosts this process started that have not yet said they listen (nor exited), per socket. */
const comingUp = new Map<string, StartedHost>();

/** A host this process started for `socket` that is still coming up. */
export function hostComingUp(socket: string): StartedHost | undefined {
  return comingUp.get(socket);
}

/**
 * Starts the host in the background when none listens (the session's first request is on its way;
 * its first call then finds the host up), with a birth line for the session's first connect to take;
 * a host already there (or coming up) is greeted ahead of use once it listens (./line-ahead.ts).
 * Nothing is attached: an unused host idles out as ever. A place that is not the user's alone starts
 * nothing (the first call says why).
 */
export function startHostSoon(agentDir: string, build = buildIdentity()): void {
  let place: HostPlace;
  try {
    if (!existsSync(agentDir)) return;
    place = prepareHostPlace(agentDir, build);
  } catch {
    return;
  }
  const { socketPath: socket, key } = place;
  const coming = comingUp.get(socket);
  if (coming) {
    // Started by this process moments ago without a birth line (a connect that needed it): greeted once up.
    const stop = coming.follow((event) => {
      stop();
      if (event.type === 'LISTENING') greetAhead(socket, key, build);
    }, false);
    return;
  }
  // No socket file: nobody listens, no need to ask.
  if (!existsSync(socket)) return void spawnHost(agentDir, build, key);
  // The probe becomes the line greeted ahead when a host answers.
  const probe = connect(socket);
  greetAhead(socket, key, build, probe);
  probe.once('error', () => {
    if (!comingUp.has(socket)) spawnHost(agentDir, build, key);
  });
}

/**
 * Runs `pi-mcp-actors host serve` detached; it exits by itself if another host already answers. With
 * the host's `key`, its stdin and stdout are this session's birth line to it, kept for the first
 * connect (./line-ahead.ts).
 */
export function spawnHost(agentDir: string, build: string, key?: Buffer): StartedHost {
  const socket = hostSocketPath(agentDir, build);
  const listeners = new Set<(event: HostProcessEvent) => void>();
  const tell = (event: HostProcessEvent) => {
    if (comingUp.get(socket) === started) comingUp.delete(socket);
    for (const listener of [...listeners]) listener(event);
  };
  // From the host's startup snapshot when one was made for this Node and build (src/host/startup-snapshot.ts).
  const child = spawn(process.execPath, hostCommand(agentDir, build), {
    detached: true,
    stdio: [key ? 'pipe' : 'ignore', key ? 'pipe' : 'ignore', 'ignore', 'pipe'],
    cwd: agentDir,
    env: {
      ...process.env,
      ...(key ? { [BIRTH_LINE_ENV]: '1' } : {}),
      PI_CODING_AGENT_DIR: agentDir,
      PI_MCP_ACTORS_HOST_BUILD: build,
      PI_MCP_ACTORS_HOST_READY_FD: String(HOST_READY_FD),
      ...compileCache(socket),
    },
  });
  let exited = false;
  const ready = child.stdio[HOST_READY_FD] as Socket | null;
  // Nobody waiting: neither the host nor its pipe keeps this process alive. Someone waiting (a call
  // that needs the host) does, until it says it listens or exits.
  const holders = new Set<(event: HostProcessEvent) => void>();
  const hold = (held: boolean) => {
    for (const handle of [child, ready]) held ? handle?.ref() : handle?.unref();
  };
  const started: StartedHost = {
    pid: child.pid,
    follow(listener, holds = true) {
      listeners.add(listener);
      if (holds) holders.add(listener);
      hold(holders.size > 0);
      return () => {
        listeners.delete(listener);
        holders.delete(listener);
        hold(holders.size > 0);
      };
    },
  };
  comingUp.set(socket, started);
  if (key && child.stdout && child.stdin && child.pid !== undefined)
    keepBirthLine(socket, pairedLine(child.stdout as Socket, child.stdin as Socket), key, build, child.pid);
  if (ready) {
    let said = '';
    ready.setEncoding('utf8');
    ready.on('data', (text: string) => {
      said += text;
      if (said.includes(HOST_READY_LINE) && !exited) {
        said = '';
        tell({ type: 'LISTENING' });
      }
    });
    ready.on('error', () => {});
  }
  const end = (code: number) => {
    if (exited) return;
    exited = true;
    tell({ type: 'EXITED', code });
  };
  child.on('error', () => end(1));
  child.on('exit', (code) => end(code ?? 1));
  hold(false);
  return started;
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
