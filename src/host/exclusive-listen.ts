// The socket is the lock: one host per socket path, however many start at once. A listen that finds
// the path taken asks whether a host answers there; a file nobody answers on is a crashed host's
// stale socket, replaced under a short mutex (an exclusive mkdir) so two starters never both replace
// it, and the replacing listen happens inside that mutex (else one could unlink the other's new socket).

import { chmodSync, mkdirSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { errorCode } from '../fs/error-code.ts';

/** A steal mutex older than this was left by a starter that died holding it. */
const STALE_MUTEX_MS = 5_000;
const PROBE_TIMEOUT_MS = 1_000;
const ATTEMPTS = 100;

export type ListenOutcome = 'listening' | 'taken';

export async function listenExclusive(server: Server, path: string): Promise<ListenOutcome> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await tryListen(server, path)) return 'listening';
    if (await answers(path)) return 'taken';
    const mutex = `${path}.replacing`;
    if (!enter(mutex)) {
      await pause(20);
      continue;
    }
    try {
      if (await answers(path)) return 'taken';
      unlinkQuietly(path);
      if (await tryListen(server, path)) return 'listening';
    } finally {
      rmdirQuietly(mutex);
    }
  }
  return 'taken';
}

async function tryListen(server: Server, path: string): Promise<boolean> {
  const listened = await new Promise<boolean>((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      if (errorCode(error) === 'EADDRINUSE') resolve(false);
      else reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve(true);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    listenPrivately(server, path);
  });
  if (listened) chmodSync(path, 0o600);
  return listened;
}

/**
 * The socket file is made by the listen itself, with the process's umask: made private from its first
 * moment (a session refuses a socket open to others), not only after the chmod that follows.
 */
function listenPrivately(server: Server, path: string): void {
  let previous: number | undefined;
  try {
    previous = process.umask(0o077);
  } catch {
    // A worker thread cannot set it; the chmod after listening still applies.
  }
  try {
    server.listen(path);
  } finally {
    if (previous !== undefined) process.umask(previous);
  }
}

/** Whether something accepts connections at `path` (a host that is slow to answer counts as there). */
export function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(true);
    }, PROBE_TIMEOUT_MS);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

function enter(mutex: string): boolean {
  try {
    mkdirSync(mutex);
    return true;
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
    try {
      if (Date.now() - statSync(mutex).mtimeMs > STALE_MUTEX_MS) rmdirQuietly(mutex);
    } catch {}
    return false;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}

function rmdirQuietly(path: string): void {
  try {
    rmdirSync(path);
  } catch {}
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
