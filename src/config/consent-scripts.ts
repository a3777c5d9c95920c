// The project files an entry names directly (issue 34): a word of its `command` or `args` that is a
// file inside the project (`sh ./server.sh`, `node ./srv.js`, `python3 server.py`, `./bin/run`). Their
// content is part of what the user allows: a changed script behind an unchanged entry asks again. Files
// those scripts load in turn are not covered (docs/security.md).

import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { readBoundedBytes } from './read-file.ts';

/** Word as written → a hash of the file's content (`unreadable` when it is not a regular file we read). */
export type ScriptHashes = Record<string, string>;

/** Words looked at per entry: an entry with more arguments than this is unusual, and reading stays cheap. */
const MAX_WORDS = 64;
/** Larger files (a compiled server) are told apart by size, modification time and inode, not read. */
const MAX_HASHED_BYTES = 8 * 1024 * 1024;

export interface ScriptWords {
  command?: string | undefined;
  args?: readonly unknown[] | undefined;
  /** The entry's own `cwd`, as written (relative to the project). */
  cwd?: string | undefined;
}

/** The project files `words` name, with their content hashes; `{}` when it names none. */
export function namedScripts(
  { command, args, cwd }: ScriptWords,
  projectDir: string,
  readBytes: (path: string) => Buffer = (path) => readBoundedBytes(path, MAX_HASHED_BYTES),
): ScriptHashes {
  const project = realOrResolved(projectDir);
  // Where a relative word is looked for: the server's working folder (the project unless `cwd` says).
  const base = typeof cwd === 'string' && cwd !== '' && !cwd.includes('$') ? resolve(project, cwd) : project;
  const hashes: ScriptHashes = Object.create(null);
  const words = [command, ...(args ?? [])].slice(0, MAX_WORDS);
  for (const word of words) {
    if (typeof word !== 'string' || word === '' || word.startsWith('-') || Object.hasOwn(hashes, word))
      continue;
    const path = resolve(base, word);
    const real = realOrUndefined(path);
    if (real === undefined || !(inside(path, project) || inside(real, project))) continue;
    const hash = contentHash(real, readBytes);
    if (hash !== undefined) hashes[word] = hash;
  }
  return hashes;
}

function contentHash(path: string, readBytes: (path: string) => Buffer): string | undefined {
  try {
    return createHash('sha256').update(readBytes(path)).digest('hex').slice(0, 32);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A directory is not a script; a FIFO or device is named but cannot be vouched for.
    if (code === 'EISDIR') return undefined;
    if (code !== 'EFBIG') return 'unreadable';
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat ? `stat:${stat.size}:${stat.mtimeMs}:${stat.ino}` : 'unreadable';
  }
}

function inside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

export function realOrResolved(path: string): string {
  return realOrUndefined(resolve(path)) ?? resolve(path);
}
