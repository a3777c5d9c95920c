// Pi's entry (package.json "pi.extensions"); Pi loads it with jiti. A checkout runs the TypeScript
// sources; an installed package, which ships only the bundle, runs dist/ (built by `npm pack`).
// Named index.ts: Pi lists an `index` entry by its package name ("pi-mcp-actors"), any other by its file name.
import { existsSync } from 'node:fs';
import type { PiHost } from './src/adapters/pi/pi-types.ts';

const fromSources = existsSync(new URL('./src/index.ts', import.meta.url));

export default async function piMcpActors(pi: PiHost): Promise<void> {
  // A variable specifier keeps the type checker from requiring dist/, which only `npm pack` builds.
  const bundle = './dist/index.js';
  const entry: { default: (pi: PiHost) => void } = fromSources
    ? await import('./src/index.ts')
    : await import(bundle);
  entry.default(pi);
}
