// Makes sure the real Pi and Node 22 are in .cache/pi, provisioning them on a fresh clone.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { isPiProvisioned, node22Path, piCliPath, repoRoot } from '../../../scripts/pi-paths.mjs';

/** Time to allow a cold provisioning (npm registry downloads) in a beforeAll / globalSetup. */
export const ENSURE_PI_TIMEOUT_MS = 300_000;

let pending: Promise<void> | undefined;

function provision(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'scripts', 'provision-pi.mjs')], {
      cwd: repoRoot,
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 && isPiProvisioned()) resolve();
      else reject(new Error(`scripts/provision-pi.mjs exited ${code}:\n${stderr.trim()}`));
    });
  });
}

/** Resolves once Pi is provisioned; cheap when it already is. */
export async function ensurePi(): Promise<{ node22Path: string; piCliPath: string }> {
  if (!isPiProvisioned()) {
    pending ??= provision().finally(() => {
      pending = undefined;
    });
    await pending;
  }
  return { node22Path, piCliPath };
}
