#!/usr/bin/env node
// `npm run pi -- <args>`: the real Pi the demo and the tests use (.cache/pi, with its own Node 22), for
// anyone without a Pi of their own. Provisions it on first use; runs in the folder npm was called from.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { isPiProvisioned, node22Path, piCliPath, repoRoot } from './pi-paths.mjs';

if (!isPiProvisioned()) {
  const provision = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'provision-pi.mjs')], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  if (provision.status !== 0) process.exit(provision.status ?? 1);
}
const pi = spawnSync(node22Path, [piCliPath, ...process.argv.slice(2)], {
  cwd: process.env.INIT_CWD ?? process.cwd(),
  stdio: 'inherit',
});
process.exit(pi.status ?? 1);
