// The shared host's V8 startup snapshot: its code with the MCP SDK already loaded (dist/host-snapshot.cjs,
// ./snapshot-main.ts), deserialized instead of evaluated, so a cold host listens with its SDK ~50 ms
// sooner and a first call through it is ~45 ms quicker (docs/shared-host.md, Performance). A blob
// belongs to one Node binary, so it is made on the user's machine, by the first host of a build as it
// stops (./snapshot-build.ts), in the host's private folder. Light on purpose: a session reads this as it
// starts the host (src/adapters/host/spawn-host.ts), so it only stats a few files.

import { appendFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageFile } from '../package-files.ts';
import { hostDir } from './paths.ts';

/** The snapshot's one-file script in an installed package (scripts/build.mjs); a checkout has none. */
export const SNAPSHOT_SCRIPT = 'host-snapshot.cjs';

/** A start from the blob not heard from after this long (it removes its trial mark as it loads) failed. */
const TRIAL_MS = 10_000;

export interface SnapshotFiles {
  blob: string;
  /** What the blob was made with and is (sizes, times), written once it loaded: see `stampOf`. */
  stamp: string;
  /** Left by a start from the blob, removed by the host it started once deserialized. */
  trial: string;
  /** One line per failure of this Node and build's blob (./snapshot-build.ts stops making it). */
  failed: string;
}

export function snapshotScript(): string {
  return packageFile('dist', SNAPSHOT_SCRIPT);
}

export function snapshotDir(agentDir: string): string {
  return join(hostDir(agentDir), 'snapshot');
}

/** The blob of this Node binary (version, arch) and build. */
export function snapshotFiles(agentDir: string, build: string): SnapshotFiles {
  const name = `host-${build}-${process.version}-${process.arch}`.replace(/[^0-9A-Za-z.+-]/g, '_');
  const blob = join(snapshotDir(agentDir), `${name}.blob`);
  return { blob, stamp: `${blob}.stamp`, trial: `${blob}.trial`, failed: `${blob}.failed` };
}

/**
 * What a blob is valid for: this Node binary (path, size, time) and the blob file itself (size, time),
 * so a blob rewritten, cut short or left by another Node of the same version is never loaded.
 */
export function stampOf(blob: string): string {
  const node = statSync(process.execPath);
  const file = statSync(blob);
  return JSON.stringify({
    node: [process.execPath, node.size, node.mtimeMs],
    blob: [file.size, file.mtimeMs],
  });
}

/**
 * The arguments after `node` that start the host: from the blob when a proven one is there, else
 * `bin/pi-mcp-actors.mjs host serve`. A blob whose stamp does not match is removed (the next plain host
 * makes it again); one whose last start never loaded too, and counts as a failure (two: not made again).
 */
export function hostCommand(agentDir: string, build: string): string[] {
  const plain = [packageFile('bin', 'pi-mcp-actors.mjs'), 'host', 'serve'];
  try {
    const files = snapshotFiles(agentDir, build);
    if (!existsSync(files.stamp)) return plain;
    const script = snapshotScript();
    if (!existsSync(script) || stampOf(files.blob) !== readStamp(files.stamp)) {
      discard(files, false);
      return plain;
    }
    const trialAt = mtimeOf(files.trial);
    if (trialAt !== undefined && Date.now() - trialAt > TRIAL_MS) {
      discard(files, true);
      return plain;
    }
    if (trialAt === undefined) writeFileSync(files.trial, '', { mode: 0o600 });
    return ['--snapshot-blob', files.blob, script, 'host', 'serve'];
  } catch {
    return plain;
  }
}

/** The host deserialized from `blob`: it loads, so its trial mark goes. */
export function snapshotLoaded(blob: string): void {
  rmSync(`${blob}.trial`, { force: true });
}

function discard(files: SnapshotFiles, failed: boolean): void {
  for (const file of [files.stamp, files.blob, files.trial]) rmSync(file, { force: true });
  if (failed) appendFileSync(files.failed, 'loaded\n', { mode: 0o600 });
}

function readStamp(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function mtimeOf(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}
