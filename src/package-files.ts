// Files shipped with the package (the inspector page, the drawn statecharts, the WordNet table), found
// from the package root whether this code runs from the sources (src/) or from the bundle (dist/).

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return dirname(fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export function packageFile(...segments: string[]): string {
  return join(packageRoot(), ...segments);
}
