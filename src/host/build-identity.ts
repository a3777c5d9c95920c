// Which build this code is. Sessions and hosts of different builds never talk: the socket's name
// carries the build (./paths.ts) and the hello checks it. Computed once, at the first use of the
// host (never at Pi's start): a hash of the package's code as it runs, the TypeScript sources in a
// checkout, the bundle when installed.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageFile } from '../package-files.ts';
import { packageVersion } from './paths.ts';

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
  const fromSources = import.meta.url.endsWith('.ts');
  const root = packageFile(fromSources ? 'src' : 'dist');
  const hash = createHash('sha256');
  try {
    const files = (readdirSync(root, { recursive: true }) as string[]).sort();
    for (const file of files) {
      const path = join(root, file);
      if (!statSync(path).isFile()) continue;
      hash.update(`${file}\0`).update(readFileSync(path)).update('\0');
    }
  } catch {
    // A bundle copied out of its package: its own file is its build.
    hash.update(readFileSync(new URL(import.meta.url)));
  }
  return hash.digest('hex');
}
