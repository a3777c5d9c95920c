// Where scripts/provision-mermaid.mjs puts Mermaid: outside the project's dependencies, because it
// (with @mermaid-js/parser and chevrotain) declares Node >= 22 and `npm ci` on Node 20 would warn, and
// because only `npm run statecharts` and the chart test use it. Plain Node ESM, no deps, so the
// provisioning script, scripts/statechart-svg.ts and the tests all import it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Exact version; bump it and the next provisioning run reinstalls. */
export const MERMAID_VERSION = '12.3.0';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const mermaidDir = join(repoRoot, '.cache', 'mermaid');
const modules = join(mermaidDir, 'node_modules');

export const mermaidPaths = Object.freeze({
  /** The browser bundle the statechart drawing loads into chromium. */
  browserBundle: join(modules, 'mermaid', 'dist', 'mermaid.min.js'),
  /** The ES module Node imports (its package "exports" entry). */
  module: join(modules, 'mermaid', 'dist', 'mermaid.core.mjs'),
  /** The DOMPurify module mermaid.core.mjs imports, so a test can shim that very instance. */
  dompurify: join(modules, 'dompurify', 'dist', 'purify.es.mjs'),
});

export function mermaidProvisioned() {
  let version;
  try {
    version = JSON.parse(readFileSync(join(modules, 'mermaid', 'package.json'), 'utf8')).version;
  } catch {
    return false;
  }
  return version === MERMAID_VERSION && Object.values(mermaidPaths).every((file) => existsSync(file));
}
