// An inter-process lock beside a data file: whoever creates `<file>.lock` exclusively (`open wx`) holds
// it. The lock file names its owner (pid, host, token, creation time) so a lock left by a crashed or
// stuck process can be broken: the owner's pid is gone (same host), or the lock is older than
// `staleMs`. Acquisition retries with a jittered backoff and gives up after `timeoutMs`; it never
// throws and never waits forever.

import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { formatDuration } from '../duration.ts';
import { errorCode } from './error-code.ts';

export interface FileLockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** A lock older than this is considered abandoned (default 10 s). */
  staleMs?: number;
}

export type FileLockResult = { ok: true; release: () => void } | { ok: false; reason: string };

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
export const DEFAULT_LOCK_STALE_MS = 10_000;
const FIRST_BACKOFF_MS = 2;
const MAX_BACKOFF_MS = 50;

interface LockOwner {
  pid: number;
  host: string;
  token: string;
  createdAt: number;
}

type Attempt = { kind: 'held'; release: () => void } | { kind: 'busy' } | { kind: 'failed'; reason: string };

export async function acquireFileLock(
  lockPath: string,
  options: FileLockOptions = {},
): Promise<FileLockResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const staleMs = options.staleMs ?? DEFAULT_LOCK_STALE_MS;
  const deadline = Date.now() + timeoutMs;
  let backoff = FIRST_BACKOFF_MS;
  for (;;) {
    const attempt = tryLock(lockPath, staleMs);
    if (attempt.kind === 'held') return { ok: true, release: attempt.release };
    if (attempt.kind === 'failed') return { ok: false, reason: attempt.reason };
    const left = deadline - Date.now();
    if (left <= 0)
      return {
        ok: false,
        reason: `${lockPath} stayed locked by another process for ${formatDuration(timeoutMs)}`,
      };
    await delay(Math.min(left, backoff / 2 + Math.random() * backoff));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

/** One attempt, synchronously (breaking a stale lock counts as part of the attempt). */
export function tryAcquireFileLockSync(lockPath: string, options: FileLockOptions = {}): FileLockResult {
  const attempt = tryLock(lockPath, options.staleMs ?? DEFAULT_LOCK_STALE_MS);
  if (attempt.kind === 'held') return { ok: true, release: attempt.release };
  return {
    ok: false,
    reason: attempt.kind === 'busy' ? `${lockPath} is locked by another process` : attempt.reason,
  };
}

function tryLock(lockPath: string, staleMs: number): Attempt {
  const first = create(lockPath);
  if (first.kind !== 'busy') return first;
  if (!breakIfStale(lockPath, staleMs)) return first;
  return create(lockPath);
}

function create(lockPath: string): Attempt {
  const owner: LockOwner = { pid: process.pid, host: hostname(), token: randomUUID(), createdAt: Date.now() };
  let fd: number;
  try {
    fd = fs.openSync(lockPath, 'wx');
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return { kind: 'busy' };
    return { kind: 'failed', reason: `cannot create ${lockPath}: ${errorMessage(error)}` };
  }
  try {
    fs.writeSync(fd, JSON.stringify(owner));
  } catch {
    // An empty lock file still excludes others; it just ages out by mtime instead of by content.
  } finally {
    fs.closeSync(fd);
  }
  return { kind: 'held', release: () => release(lockPath, owner.token) };
}

function release(lockPath: string, token: string): void {
  try {
    // Only remove our own lock: if ours was broken as stale, the file now belongs to someone else.
    if (readOwner(fs.readFileSync(lockPath, 'utf8'))?.token !== token) return;
    fs.unlinkSync(lockPath);
  } catch {
    // Already gone.
  }
}

/** True when a stale lock was removed (by us or by a racing breaker) and creating may be retried. */
function breakIfStale(lockPath: string, staleMs: number): boolean {
  let text: string;
  let mtimeMs: number;
  try {
    text = fs.readFileSync(lockPath, 'utf8');
    mtimeMs = fs.statSync(lockPath).mtimeMs;
  } catch (error) {
    return errorCode(error) === 'ENOENT';
  }
  if (!isStale(readOwner(text), mtimeMs, staleMs)) return false;
  // Move the stale lock aside under a unique name (atomic), then check we moved the one we judged:
  // if another breaker replaced it in between, put the fresh lock back.
  const aside = `${lockPath}.stale-${randomUUID()}`;
  try {
    fs.renameSync(lockPath, aside);
  } catch {
    return true;
  }
  try {
    if (fs.readFileSync(aside, 'utf8') !== text) fs.linkSync(aside, lockPath);
  } catch {
    // The fresh lock could not be restored because a newer one exists; nothing more to do.
  }
  try {
    fs.unlinkSync(aside);
  } catch {
    // Ignore.
  }
  return true;
}

function isStale(owner: LockOwner | undefined, mtimeMs: number, staleMs: number): boolean {
  const now = Date.now();
  if (!owner) return now - mtimeMs > staleMs;
  if (owner.host === hostname() && !isAlive(owner.pid)) return true;
  return now - owner.createdAt > staleMs;
}

function readOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (
      typeof value?.pid === 'number' &&
      typeof value.host === 'string' &&
      typeof value.token === 'string' &&
      typeof value.createdAt === 'number'
    ) {
      return value as LockOwner;
    }
  } catch {
    // Empty or half-written lock file.
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
