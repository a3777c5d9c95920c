// The one way src/config reads a file; loads take it as a seam (tests, the start record's texts).

import { readFileSync } from 'node:fs';

/** Text of a file, or undefined when it does not exist. Other failures throw. */
export type ReadFile = (path: string) => string | undefined;

export const readFileFromDisk: ReadFile = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
};
