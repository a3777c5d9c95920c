// The shared host's files are trusted only where no other user can reach them: a folder of this user
// with no group or other bits, not a symbolic link, and in it a socket and a key file of this user with
// the same modes. The client checks before it connects and the host before it listens.

import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { errorCode } from '../fs/error-code.ts';

/** The host's place cannot be used safely (or at all): the session runs its servers itself. */
export class HostPlaceError extends Error {
  override name = 'HostPlaceError';
}

/** This process's user id; undefined where there is none (Windows), and nothing is checked. */
export function currentUid(): number | undefined {
  return process.getuid?.();
}

type Kind = 'folder' | 'socket' | 'file';

/**
 * Why `path` is not this user's private `kind`, or undefined when it is. Missing is a problem too
 * (callers that accept a missing file check `existsQuietly` first).
 */
export function privacyProblem(path: string, kind: Kind, uid = currentUid()): string | undefined {
  let stat: Stats;
  try {
    stat = lstatSync(path);
  } catch (error) {
    return `${path} cannot be read (${errorCode(error) ?? String(error)})`;
  }
  if (stat.isSymbolicLink()) return `${path} is a symbolic link`;
  const isKind = kind === 'folder' ? stat.isDirectory() : kind === 'socket' ? stat.isSocket() : stat.isFile();
  if (!isKind) return `${path} is not a ${kind}`;
  if (uid === undefined) return undefined;
  if (stat.uid !== uid) return `${path} belongs to another user (uid ${stat.uid}, not ${uid})`;
  if ((stat.mode & 0o077) !== 0)
    return `${path} is open to other users (mode ${(stat.mode & 0o777).toString(8).padStart(3, '0')})`;
  return undefined;
}

/** Whether anything (a link included) is at `path`. */
export function existsQuietly(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes `dir` (mode 0700; its parent must exist) unless it exists, then requires it private to this
 * user. A folder someone else made, or made open, is refused, not repaired: what was put in it
 * meanwhile cannot be known.
 */
export function ensurePrivateFolder(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'EEXIST')
      throw new HostPlaceError(
        `the folder ${dir} for the shared host cannot be made (${code ?? String(error)})`,
      );
  }
  const problem = privacyProblem(dir, 'folder');
  if (problem) throw new HostPlaceError(`refused the shared host's folder: ${problem}`);
}

/** Requires the socket at `path`, when there is one, to be this user's and private. */
export function checkSocket(path: string): void {
  if (!existsQuietly(path)) return;
  const problem = privacyProblem(path, 'socket');
  if (problem) throw new HostPlaceError(`refused the shared host's socket: ${problem}`);
}
