// The one atomic writer: a file is replaced by writing a temp file in the same directory and renaming
// it over the target, so readers never see a torn file. Callers that read-merge-write hold the
// inter-process lock of ./file-lock.ts around it.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errorCode } from './error-code.ts';

export interface AtomicWriteOptions {
  /** File mode of the new file (e.g. 0o600 for secrets); the temp file is created with it. */
  mode?: number;
}

export async function replaceAtomically(
  file: string,
  text: string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await fs.promises.open(temp, 'wx', options.mode ?? 0o666);
    try {
      if (options.mode !== undefined) await handle.chmod(options.mode);
      await handle.writeFile(text, 'utf8');
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await renameWithRetry(temp, file);
  } catch (error) {
    await fs.promises.rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

// Windows refuses to replace a file another process has open for a moment; retry briefly.
async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.promises.rename(from, to);
      return;
    } catch (error) {
      const code = errorCode(error);
      if (attempt >= 5 || (code !== 'EPERM' && code !== 'EBUSY' && code !== 'EACCES')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * (attempt + 1)));
    }
  }
}

const LEFTOVER_AGE_MS = 60_000;

/** Temp files of writers that died between write and rename (only ours: `<file>.<pid>.<hex>.tmp`). */
export function removeLeftoverTempFiles(file: string): void {
  try {
    const dir = dirname(file);
    const pattern = new RegExp(`^${escapeRegExp(basename(file))}\\.\\d+\\.[0-9a-f]{8}\\.tmp$`);
    for (const name of fs.readdirSync(dir)) {
      if (!pattern.test(name)) continue;
      const path = join(dir, name);
      if (Date.now() - fs.statSync(path).mtimeMs > LEFTOVER_AGE_MS) fs.rmSync(path, { force: true });
    }
  } catch {
    // Best effort.
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
