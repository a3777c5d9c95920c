// Watches the files a session's config came from and says CONFIG_TOUCHED when one of them may have
// changed; the session chart debounces (its `configDebounce` delay) and reloads. Folders are watched,
// not files: editors save by writing a new file and renaming it over the old one, and a project file
// may appear where there was none. A folder that does not exist yet is watched from its nearest
// existing parent. WATCH events replace the list (an edit may add an import).

import { type FSWatcher, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fromCallback } from 'xstate';
import type { ConfigWatchEvent, ConfigWatchInput } from '../machines/session.machine.ts';

export const configWatchLogic = fromCallback<ConfigWatchEvent, ConfigWatchInput>(
  ({ input, sendBack, receive }) => {
    let watchers: FSWatcher[] = [];
    const follow = (files: string[]) => {
      for (const w of watchers) w.close();
      watchers = [];
      // folder → the names in it that lead to a watched file
      const folders = new Map<string, Set<string>>();
      for (const file of files) {
        let dir = dirname(file);
        let name = basename(file);
        while (!isFolder(dir) && dirname(dir) !== dir) {
          name = basename(dir);
          dir = dirname(dir);
        }
        const names = folders.get(dir) ?? new Set<string>();
        names.add(name);
        folders.set(dir, names);
      }
      for (const [dir, names] of folders) {
        try {
          const w = watch(dir, { persistent: false }, (_event, name) => {
            if (name === null || names.has(String(name))) sendBack({ type: 'CONFIG_TOUCHED' });
          });
          w.on('error', () => undefined);
          watchers.push(w);
        } catch {
          // A folder we may not read: its files are still checked at every turn's end.
        }
      }
    };
    follow(input.files);
    receive((event) => {
      if (event.type === 'WATCH') follow(event.files);
    });
    return () => {
      for (const w of watchers) w.close();
    };
  },
);

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The files' sizes and change times (or their absence): a cheap "did anything change" at a turn's end. */
export function filesSignature(files: string[]): string {
  return files
    .map((file) => {
      try {
        const s = statSync(file);
        return `${file}:${s.size}:${s.mtimeMs}:${s.ino}`;
      } catch {
        return `${file}:-`;
      }
    })
    .join('\n');
}

/**
 * A config file that is empty right now is most likely being written (a save truncates, then writes;
 * on a loaded machine the write may come after the watcher's settled read): no check takes it as "no
 * servers"; the write is a change the watcher reports again.
 */
export function someFileEmpty(files: string[]): boolean {
  return files.some((file) => {
    try {
      return statSync(file).size === 0;
    } catch {
      return false;
    }
  });
}
