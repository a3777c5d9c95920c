// Private temp files for what does not belong inline in a tool result (blobs, audio, cut output),
// and the byte sizes the result text quotes.

import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `data` to a new file in `dir` readable only by the user (0600; the dir is created 0700 when
 * missing). The name is random and the file is created exclusively, so an existing file or symlink of
 * that name is never followed. Returns the path, or throws the fs error for the caller to describe.
 */
export function writePrivateFile(
  dir: string,
  prefix: string,
  extension: string,
  data: string | Buffer,
): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${safeName(prefix)}-${randomBytes(6).toString('hex')}${extension}`);
  writeFileSync(path, data, { flag: 'wx', mode: 0o600 });
  return path;
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 60) || 'mcp';
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
