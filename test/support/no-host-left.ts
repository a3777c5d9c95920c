// vitest globalSetup: every test of the run makes its temp folders under one folder of its own
// (TMPDIR, inherited by the workers and the Pi and CLI processes they start), so at the end the shared
// hosts any test left behind are found by their agent dir, stopped by pid, and reported as a failure.
// Hosts of other runs on the machine are never touched.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostsUnder, stopHostsUnder } from './hosts.ts';

/** A host whose agent dir was just deleted is given this long to notice and stop by itself. */
const GRACE_MS = 5_000;

export default function setup(): () => Promise<void> {
  const outer = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), 'pma-run-'));
  process.env.TMPDIR = root;
  return async () => {
    const deadline = Date.now() + GRACE_MS;
    while (hostsUnder(root).length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const left = await stopHostsUnder(root);
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    rmSync(root, { recursive: true, force: true });
    if (left.length > 0)
      throw new Error(
        `tests left ${left.length} shared host(s) running (stopped now): ${left.map((h) => `pid ${h.pid} for ${h.agentDir}`).join('; ')}`,
      );
  };
}
