#!/usr/bin/env node
// Installs the launchers the launcher-guard tests start user servers with (deno, bun, pnpm, yarn) into
// .cache/launchers, from the npm registry only: deno and bun as their one-binary platform packages
// (no install scripts), pnpm and yarn as plain JavaScript. Idempotent: a run with every program on
// disk at its version does nothing. uv, go and cargo have no npm package (docs/security.md says which
// launchers are not tested here).
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAUNCHER_PACKAGES, launcherPaths, launchersDir } from './launcher-paths.mjs';
import { npmInstallInto } from './npm-install-into.mjs';

const log = (msg) => process.stdout.write(`[provision-launchers] ${msg}\n`);

function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(join(launchersDir, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

function main() {
  const stale = Object.entries(LAUNCHER_PACKAGES).filter(
    ([name, version]) => installedVersion(name) !== version,
  );
  if (stale.length === 0 && Object.values(launcherPaths).every((file) => existsSync(file))) {
    log(
      `ok: ${Object.entries(LAUNCHER_PACKAGES)
        .map(([n, v]) => `${n}@${v}`)
        .join(' ')}`,
    );
    return 0;
  }
  mkdirSync(launchersDir, { recursive: true });
  const started = Date.now();
  log(`npm install ${stale.map(([n, v]) => `${n}@${v}`).join(' ')}`);
  const failed = npmInstallInto(launchersDir, {
    name: 'pi-mcp-actors-launchers',
    madeBy: 'scripts/provision-launchers.mjs',
    dependencies: LAUNCHER_PACKAGES,
  });
  if (failed) {
    process.stderr.write(`[provision-launchers] npm install failed:\n${failed}\n`);
    return 1;
  }
  for (const file of [launcherPaths.deno, launcherPaths.bun]) if (existsSync(file)) chmodSync(file, 0o755);
  const missing = Object.entries(launcherPaths).filter(([, file]) => !existsSync(file));
  if (missing.length > 0) {
    process.stderr.write(
      `[provision-launchers] installed, but missing: ${missing.map(([n, f]) => `${n} (${f})`).join(', ')}\n`,
    );
    return 1;
  }
  log(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

process.exitCode = main();
