// Making the host's startup snapshot (./startup-snapshot.ts): a host of an installed build that started
// without one makes it as it stops (its servers closed, nobody served), at the lowest priority, one
// maker at a time (an exclusive lock file). Node writes the blob to a temp file; it is loaded once (a check
// run) before it is renamed into place and stamped, so a session only ever starts a host from a blob
// that loads. The maker runs with an empty environment: nothing of this host's env is in the heap.

import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { setPriority } from 'node:os';
import { basename, join } from 'node:path';
import { replaceAtomically } from '../fs/atomic-file.ts';
import { tryAcquireFileLockSync } from '../fs/file-lock.ts';
import type { Logger } from '../logger.ts';
import { ensurePrivateFolder } from './private-place.ts';
import {
  type SnapshotFiles,
  snapshotDir,
  snapshotFiles,
  snapshotScript,
  stampOf,
} from './startup-snapshot.ts';

/** Set for the check run: the snapshot's main says it loaded and ends (./snapshot-main.ts). */
export const SNAPSHOT_CHECK_ENV = 'PI_MCP_ACTORS_SNAPSHOT_CHECK';
export const SNAPSHOT_CHECK_LINE = 'snapshot loaded';

/** A lock older than this (or whose maker's pid is gone) is a maker that died: it is taken over. */
const LOCK_STALE_MS = 5 * 60_000;
/** Making takes about a second; one that takes this long is ended (and counts as failed). */
const MAKER_LIMIT_MS = 60_000;
/** A blob that failed this often (to make, or to load: ./startup-snapshot.ts) is not made again. */
const FAILURES_KEPT = 2;
/** Blobs of other builds or Node versions kept besides this one (a second installed build may use one). */
const OTHERS_KEPT = 1;

export type SnapshotOutcome = 'made' | 'skipped' | 'failed';

/**
 * Makes this build's blob when there is none yet (nor a failed one) and the code runs from the bundle.
 * Never throws.
 */
export async function makeSnapshot(agentDir: string, build: string, log: Logger): Promise<SnapshotOutcome> {
  const script = snapshotScript();
  // A checkout runs the sources: no script of this code to snapshot.
  if (import.meta.url.endsWith('.ts') || !existsSync(script)) return 'skipped';
  const files = snapshotFiles(agentDir, build);
  if (existsSync(files.stamp) || failures(files) >= FAILURES_KEPT) return 'skipped';
  const dir = snapshotDir(agentDir);
  let release: () => void;
  try {
    ensurePrivateFolder(dir);
    const lock = tryAcquireFileLockSync(`${files.blob}.lock`, { staleMs: LOCK_STALE_MS });
    if (!lock.ok) return 'skipped';
    release = lock.release;
  } catch {
    // The agent dir going, or not the user's alone: nothing is made there.
    return 'skipped';
  }
  const temp = `${files.blob}.${process.pid}.tmp`;
  const started = performance.now();
  try {
    await runNode(['--snapshot-blob', temp, '--build-snapshot', script], dir, {});
    const said = await runNode(['--snapshot-blob', temp, script], dir, { [SNAPSHOT_CHECK_ENV]: '1' });
    if (!said.includes(SNAPSHOT_CHECK_LINE)) throw new Error('the blob did not load');
    chmodSync(temp, 0o600);
    renameSync(temp, files.blob);
    await replaceAtomically(files.stamp, stampOf(files.blob), { mode: 0o600 });
    removeOthers(dir, basename(files.blob));
    log.info('startup snapshot made: the next host starts from it', {
      ms: Math.round(performance.now() - started),
      bytes: statSync(files.blob).size,
    });
    return 'made';
  } catch (error) {
    rmSync(temp, { force: true });
    // Making it fails the same way next time: no more tries for this Node and build.
    writeFileSync(files.failed, 'made\n'.repeat(FAILURES_KEPT), { mode: 0o600 });
    log.warn('startup snapshot not made: hosts start without it', { error: (error as Error).message });
    return 'failed';
  } finally {
    release();
  }
}

function failures(files: SnapshotFiles): number {
  try {
    return readFileSync(files.failed, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

/** Runs Node at the lowest priority with only `env`; resolves with its stdout, rejects with its stderr's end. */
function runNode(args: string[], cwd: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // The host waits for it as it stops: never for long.
      timeout: MAKER_LIMIT_MS,
      killSignal: 'SIGKILL',
    });
    try {
      if (child.pid !== undefined) setPriority(child.pid, 19);
    } catch {
      // Not allowed here: it runs at the host's priority.
    }
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      out += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      err = (err + text).slice(-600);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(out);
      else
        reject(
          new Error(
            `node ${args.includes('--build-snapshot') ? 'making' : 'loading'} the snapshot ended with ${signal ?? `code ${code}`}: ${lastLine(err)}`,
          ),
        );
    });
  });
}

function lastLine(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.includes('Warning'));
  return lines.at(-1)?.trim() ?? '(nothing on stderr)';
}

/** Other blobs (and their files) past the newest OTHERS_KEPT, so upgrades do not pile them up. */
function removeOthers(dir: string, keep: string): void {
  const blobs = readdirSync(dir)
    .filter((name) => name.endsWith('.blob') && name !== keep)
    .map((name) => ({ name, at: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { name } of blobs.slice(OTHERS_KEPT))
    for (const file of [name, `${name}.stamp`, `${name}.trial`]) rmSync(join(dir, file), { force: true });
}
