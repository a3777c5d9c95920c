// Pi's entry (package.json "pi.extensions"). A checkout runs the TypeScript sources (Pi loads them with
// jiti); an installed package, which ships only the bundle, runs dist/ (built by `npm pack`).
import { existsSync } from 'node:fs';

const fromSources = existsSync(new URL('./src/index.ts', import.meta.url));

export default async function piMcpActors(pi) {
  const entry = fromSources ? await import('./src/index.ts') : await import('./dist/index.js');
  return entry.default(pi);
}
