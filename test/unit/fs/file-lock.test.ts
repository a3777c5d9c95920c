import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireFileLock, tryAcquireFileLockSync } from '../../../src/fs/file-lock.ts';

let dir: string;
let lockPath: string;

beforeEach(() => {
  dir = fs.mkdtempSync(join(tmpdir(), 'file-lock-'));
  lockPath = join(dir, 'mcp-cache.json.lock');
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function writeLock(owner: { pid: number; host?: string; createdAt?: number; token?: string }): string {
  const text = JSON.stringify({
    pid: owner.pid,
    host: owner.host ?? hostname(),
    token: owner.token ?? 'someone-else',
    createdAt: owner.createdAt ?? Date.now(),
  });
  fs.writeFileSync(lockPath, text);
  return text;
}

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

describe('file lock', () => {
  it('is exclusive: a second attempt fails while the first holds it, succeeds after release', async () => {
    const first = await acquireFileLock(lockPath);
    expect(first.ok).toBe(true);
    expect(tryAcquireFileLockSync(lockPath).ok).toBe(false);
    expect((await acquireFileLock(lockPath, { timeoutMs: 20 })).ok).toBe(false);
    if (first.ok) first.release();
    expect(fs.existsSync(lockPath)).toBe(false);
    const second = tryAcquireFileLockSync(lockPath);
    expect(second.ok).toBe(true);
    if (second.ok) second.release();
  });

  it('breaks a lock whose owner process is gone', async () => {
    writeLock({ pid: deadPid() });
    const result = await acquireFileLock(lockPath, { timeoutMs: 1_000 });
    expect(result.ok).toBe(true);
    expect(JSON.parse(fs.readFileSync(lockPath, 'utf8')).pid).toBe(process.pid);
  });

  it('breaks a lock older than staleMs even if its owner is alive', async () => {
    writeLock({ pid: process.pid, createdAt: Date.now() - 60_000 });
    expect((await acquireFileLock(lockPath, { staleMs: 10_000, timeoutMs: 1_000 })).ok).toBe(true);
  });

  it('does not break a fresh lock of a live process; gives up after the bound', async () => {
    const text = writeLock({ pid: process.pid });
    const result = await acquireFileLock(lockPath, { timeoutMs: 30 });
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/stayed locked/) });
    expect(fs.readFileSync(lockPath, 'utf8')).toBe(text);
  });

  it('trusts only age for a lock from another host (pids are not comparable)', async () => {
    writeLock({ pid: deadPid(), host: 'another-host' });
    expect(tryAcquireFileLockSync(lockPath).ok).toBe(false);
    writeLock({ pid: deadPid(), host: 'another-host', createdAt: Date.now() - 60_000 });
    expect(tryAcquireFileLockSync(lockPath).ok).toBe(true);
  });

  it('judges an unreadable (empty) lock file by its modification time', () => {
    fs.writeFileSync(lockPath, '');
    expect(tryAcquireFileLockSync(lockPath).ok).toBe(false);
    const longAgo = new Date(Date.now() - 60_000);
    fs.utimesSync(lockPath, longAgo, longAgo);
    expect(tryAcquireFileLockSync(lockPath).ok).toBe(true);
  });

  it('release leaves alone a lock that is no longer ours', async () => {
    const mine = await acquireFileLock(lockPath);
    const theirs = writeLock({ pid: process.pid, token: 'theirs' });
    if (mine.ok) mine.release();
    expect(fs.readFileSync(lockPath, 'utf8')).toBe(theirs);
  });

  it('fails at once, with the reason, when the lock cannot be created', async () => {
    const result = await acquireFileLock(join(dir, 'missing-dir', 'x.lock'), { timeoutMs: 5_000 });
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/cannot create .*ENOENT/) });
  });
});
