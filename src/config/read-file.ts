// The one way src/config reads a file; loads take it as a seam (tests, the start record's texts).
// Reads are bounded: only regular files (a symlink to /dev/zero or a FIFO would never end) of at most
// MAX_CONFIG_BYTES, so a hostile project file cannot freeze or exhaust Pi.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** Text of a file, or undefined when it does not exist. Other failures throw. */
export type ReadFile = (path: string) => string | undefined;

/** Larger than any real config (Claude Code's ~/.claude.json, with its history, stays well below). */
export const MAX_CONFIG_BYTES = 32 * 1024 * 1024;

/** A file we refuse to read; `code` is ENOTREG (not a regular file) or EFBIG (over the cap). */
export class UnreadableFileError extends Error {
  constructor(
    readonly code: 'ENOTREG' | 'EFBIG',
    readonly file: string,
    why: string,
  ) {
    super(`${file} ${why}`);
    this.name = 'UnreadableFileError';
  }
}

export const readFileFromDisk: ReadFile = (path) => {
  try {
    return readBounded(path, MAX_CONFIG_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
};

/** Reads a regular file of at most `maxBytes` as UTF-8; throws UnreadableFileError otherwise. */
export function readBounded(path: string, maxBytes: number): string {
  return readBoundedBytes(path, maxBytes).toString('utf8');
}

/** readBounded's bytes, undecoded (a script's content hash). */
export function readBoundedBytes(path: string, maxBytes: number): Buffer {
  // Non-blocking, so opening a FIFO does not wait for a writer; fstat then refuses it.
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' });
    if (!stat.isFile()) throw new UnreadableFileError('ENOTREG', path, 'is not a regular file');
    if (stat.size > maxBytes)
      throw new UnreadableFileError('EFBIG', path, `is larger than ${maxBytes} bytes`);
    // The size may lie (a file growing meanwhile): read to the end, never past the cap.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      total += read;
      if (total > maxBytes) throw new UnreadableFileError('EFBIG', path, `is larger than ${maxBytes} bytes`);
      chunks.push(chunk.subarray(0, read));
    }
    return Buffer.concat(chunks);
  } finally {
    closeSync(fd);
  }
}
