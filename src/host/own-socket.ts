// The host is reachable only through the socket file it listened on. Once that file is removed (its
// agent dir deleted: a finished test, a user cleaning up) or replaced (another host took the path over
// as stale), no session can reach this host again, so it should stop rather than idle for minutes; and
// it must then not remove a socket that is now another host's.

import { type FSWatcher, statSync, watch } from 'node:fs';
import { dirname } from 'node:path';

/**
 * How often the files are checked besides the watch: when the file system cannot be watched (inotify
 * limits), and for a change a watch can miss (a folder removed with everything in it).
 */
const POLL_MS = 2_000;

/**
 * The identity of the file at `path`, or undefined when there is none: device, inode and its change
 * time (a file made just after another was removed may get the same inode).
 */
export function fileIdentity(path: string): string | undefined {
  try {
    const stat = statSync(path, { bigint: true });
    return `${stat.dev}:${stat.ino}:${stat.ctimeNs}`;
  } catch {
    return undefined;
  }
}

export interface SocketWatch {
  /** Whether the file at the socket's path is still the one that was there when watching began. */
  ours(): boolean;
  stop(): void;
}

/**
 * Calls `onGone` once, when the socket file at `socketPath` or the key file at `keyFile` is no longer
 * the one there now, or `folder` (the agent dir) is gone. Watches their folders (the socket's may be
 * elsewhere than the agent dir's) and polls on an unref'd timer.
 */
export function watchOwnSocket(
  socketPath: string,
  folder: string,
  keyFile: string,
  onGone: () => void,
): SocketWatch {
  const own = fileIdentity(socketPath);
  const key = fileIdentity(keyFile);
  const ours = () => own !== undefined && fileIdentity(socketPath) === own;
  const watchers: FSWatcher[] = [];
  let poll: NodeJS.Timeout | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearInterval(poll);
    for (const watcher of watchers.splice(0)) watcher.close();
  };
  const check = () => {
    if (stopped) return;
    if (ours() && fileIdentity(keyFile) === key && fileIdentity(folder) !== undefined) return;
    stop();
    onGone();
  };
  for (const dir of new Set([dirname(socketPath), dirname(keyFile), folder])) {
    try {
      const watcher = watch(dir, { persistent: false }, check);
      watcher.on('error', check);
      watchers.push(watcher);
    } catch {}
  }
  poll = setInterval(check, POLL_MS);
  poll.unref();
  check();
  return { ours, stop };
}
