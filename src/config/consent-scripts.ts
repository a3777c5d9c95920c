// The project files an entry names directly (issue 34): a word of its `command` or `args` that is a
// file inside the project (`sh ./server.sh`, `node ./srv.js`, `python3 server.py`, `./bin/run`). Their
// content is part of what the user allows: a changed script behind an unchanged entry asks again. Files
// those scripts load in turn are not covered (docs/security.md).

import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { MAX_CONFIG_BYTES, readBoundedBytes } from './read-file.ts';

/** Word as written → a hash of the file's content (`unreadable` when it is not a regular file we read). */
export type ScriptHashes = Record<string, string>;

/** Words looked at per entry: an entry with more arguments than this is unusual, and reading stays cheap. */
const MAX_WORDS = 64;

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
  readBytes: (path: string) => Buffer = (path) => readBoundedBytes(path, MAX_CONFIG_BYTES),
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
    // A directory is not a script; a FIFO, device or huge file is named but cannot be vouched for.
    return (error as NodeJS.ErrnoException).code === 'EISDIR' ? undefined : 'unreadable';
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
