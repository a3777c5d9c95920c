#!/usr/bin/env node
// Installs the Debian packages the tests need, with apt-get, only when they are missing:
//   chromium  headless browser for the inspector test and for rendering the statechart SVGs
//   tmux      terminal for the TUI tests
//   python3   a user's `python3 -m` server in the launcher-guard tests
// Idempotent: when every program is on disk it does nothing. Never downloads a browser build.
// Not root and something missing: exits 1 with the command to run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian package → the program it must provide. */
const SYSTEM_PACKAGES = [
  { name: 'chromium', program: '/usr/bin/chromium' },
  { name: 'tmux', program: '/usr/bin/tmux' },
  { name: 'python3', program: '/usr/bin/python3' },
];

const log = (msg) => process.stdout.write(`[provision-system] ${msg}\n`);

function aptGet(args) {
  const result = spawnSync('apt-get', args, {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? result.error.message : ''}`;
  return { ok: !result.error && result.status === 0, output };
}

const tail = (text) => text.trim().split('\n').slice(-15).join('\n');

function main() {
  const missing = SYSTEM_PACKAGES.filter((pkg) => !existsSync(pkg.program));
  if (missing.length === 0) {
    log(`ok: ${SYSTEM_PACKAGES.map((p) => p.name).join(', ')}`);
    return 0;
  }
  const names = missing.map((p) => p.name);
  const command = `apt-get update && apt-get install -y ${names.join(' ')}`;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    process.stderr.write(
      `[provision-system] missing: ${names.join(', ')}. The tests need them and only root can install them.\n` +
        `Run as root (or with sudo): ${command}\n`,
    );
    return 1;
  }
  const started = Date.now();
  log(`installing ${names.join(', ')} with apt-get`);
  let attempt = aptGet(['install', '-y', ...names]);
  if (!attempt.ok) {
    // A fresh image often has no package lists yet.
    const update = aptGet(['update']);
    if (!update.ok) {
      process.stderr.write(`[provision-system] apt-get update failed:\n${tail(update.output)}\n`);
      return 1;
    }
    attempt = aptGet(['install', '-y', ...names]);
  }
  const still = missing.filter((p) => !existsSync(p.program));
  if (!attempt.ok || still.length > 0) {
    process.stderr.write(
      `[provision-system] apt-get install -y ${names.join(' ')} failed:\n${tail(attempt.output)}\n` +
        `Install them yourself (${command}) and run the tests again.\n`,
    );
    return 1;
  }
  log(`installed ${names.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

process.exitCode = main();
