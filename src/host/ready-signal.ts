// A host started by a session says so the moment it listens: one line on a pipe the session gave it
// as this fd (src/adapters/host/spawn-host.ts), so the session connects then, not at its next try.
// The pipe is closed right after, before the host spawns any server (which would inherit it).

import { closeSync, writeSync } from 'node:fs';

export const HOST_READY_FD = 3;
export const HOST_READY_LINE = 'listening\n';

/** Tells the session that started this host that it listens (nothing when it was not started so). */
export function tellStarter(env: Record<string, string | undefined>): void {
  if (env.PI_MCP_ACTORS_HOST_READY_FD !== String(HOST_READY_FD)) return;
  try {
    writeSync(HOST_READY_FD, HOST_READY_LINE);
  } catch {
    // The session that started it is gone: nobody waits.
  }
  try {
    closeSync(HOST_READY_FD);
  } catch {
    // Already closed.
  }
}
