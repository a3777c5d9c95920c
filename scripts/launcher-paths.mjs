// Where scripts/provision-launchers.mjs puts the launchers the tests run user servers through (deno,
// bun, pnpm, yarn), all from the npm registry. Plain Node ESM, no deps, so the provisioning script and
// the tests both import it.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const platform = `${process.platform}-${process.arch}`;
const DENO_PACKAGES = {
  'linux-x64': '@deno/linux-x64-glibc',
  'linux-arm64': '@deno/linux-arm64-glibc',
  'darwin-x64': '@deno/darwin-x64',
  'darwin-arm64': '@deno/darwin-arm64',
};
const BUN_PACKAGES = {
  'linux-x64': '@oven/bun-linux-x64',
  'linux-arm64': '@oven/bun-linux-aarch64',
  'darwin-x64': '@oven/bun-darwin-x64',
  'darwin-arm64': '@oven/bun-darwin-aarch64',
};

/** Exact versions; bump one and the next provisioning run reinstalls. Native ones ship as one binary. */
export const LAUNCHER_PACKAGES = Object.freeze({
  [DENO_PACKAGES[platform] ?? '@deno/unsupported']: '2.9.6',
  [BUN_PACKAGES[platform] ?? '@oven/unsupported']: '1.4.5',
  pnpm: '10.34.9',
  yarn: '1.22.22',
});

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const launchersDir = join(repoRoot, '.cache', 'launchers');
const modules = join(launchersDir, 'node_modules');

/** Absolute paths of the provisioned programs (JavaScript ones are run with node). */
export const launcherPaths = Object.freeze({
  deno: join(modules, DENO_PACKAGES[platform] ?? '@deno/unsupported', 'deno'),
  bun: join(modules, BUN_PACKAGES[platform] ?? '@oven/unsupported', 'bin', 'bun'),
  pnpm: join(modules, 'pnpm', 'bin', 'pnpm.cjs'),
  yarn: join(modules, 'yarn', 'bin', 'yarn.js'),
});

export function launchersProvisioned() {
  return Object.values(launcherPaths).every((file) => existsSync(file));
}
