// Which build this code is. Sessions and hosts of different builds never talk: the socket's name
// carries the build (./paths.ts) and the hello checks it. Computed once, at the first use of the
// host (never at Pi's start): a hash of the package's code as it runs, the TypeScript sources in a
// checkout, the bundle when installed. The bundle's hash is taken by its build (scripts/build.mjs
// writes it to dist/build-id): a session about to start its host reads 64 bytes instead of hashing
// 3 MB on the way (the host's start is on the first call's path).

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageFile } from '../package-files.ts';
import { packageVersion } from './paths.ts';

/** The bundle's own hash, beside it: folderHash of dist/ without this file (scripts/build.mjs). */
export const BUILD_STAMP_FILE = 'build-id';

let identity: string | undefined;

/**
 * `<version>-<hash>`. PI_MCP_ACTORS_HOST_BUILD overrides it: a session passes its own to the host it
 * starts (the same files), and tests use it for a host of another build.
 */
export function buildIdentity(env: Record<string, string | undefined> = process.env): string {
  const forced = env.PI_MCP_ACTORS_HOST_BUILD;
  if (forced) return forced;
  identity ??= `${packageVersion()}-${codeHash().slice(0, 12)}`;
  return identity;
}

/** The hash of the code folder this module runs from: src/ (sources) or dist/ (the bundle). */
function codeHash(): string {
  if (import.meta.url.endsWith('.ts')) return folderHash(packageFile('src'));
  const dist = packageFile('dist');
  return stampIn(dist) ?? folderHash(dist);
}

function stampIn(dist: string): string | undefined {
  try {
    const stamp = readFileSync(join(dist, BUILD_STAMP_FILE), 'utf8').trim();
    return /^[0-9a-f]{64}$/.test(stamp) ? stamp : undefined;
  } catch {
    return undefined;
  }
}

/**
 * sha256 over every file under `root` (sorted relative paths, each path and its bytes), the stamp
 * file at its top left out. scripts/build.mjs computes the same for the stamp.
 */
export function folderHash(root: string): string {
  const hash = createHash('sha256');
  try {
    const files = (readdirSync(root, { recursive: true }) as string[]).sort();
    for (const file of files) {
      const path = join(root, file);
      if (file === BUILD_STAMP_FILE || !statSync(path).isFile()) continue;
      hash.update(`${file}\0`).update(readFileSync(path)).update('\0');
    }
  } catch {
    // A bundle copied out of its package: its own file is its build.
    hash.update(readFileSync(new URL(import.meta.url)));
  }
  return hash.digest('hex');
}
