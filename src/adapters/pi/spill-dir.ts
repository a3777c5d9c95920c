// The session's folder for spilled output and blobs: created by the first file written into it,
// removed at shutdown when nothing is left in it.

import { randomBytes } from 'node:crypto';
import { rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A folder name of this Pi process's own (not created here). */
export function spillDirPath(): string {
  return join(tmpdir(), `pi-mcp-actors-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Spilled files stay for the model to read during the session; an unused folder does not linger. */
export function removeIfEmpty(dir: string) {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (files the model may still want) or never created.
  }
}
