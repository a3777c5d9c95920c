// Which copy of the extension the real-Pi benchmarks load. By default the one an installed user runs:
// package.json, index.ts, bin/ and the dist/ bundle (`scripts/build.mjs`), built once per bench process
// into a temp folder that is removed at exit. `--entry=source` (BENCH_ENTRY=source) loads the
// checkout's TypeScript sources through Pi's jiti instead, as a developer's `-e .` does.

import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageVersion } from '../../src/host/paths.ts';
import { REPO_ROOT } from './provision.ts';

export type EntryKind = 'installed' | 'source';

export function entryKind(): EntryKind {
  return process.env.BENCH_ENTRY === 'source' ? 'source' : 'installed';
}

let installed: string | undefined;

/** The path Pi gets with `-e`: the installed package folder, or src/index.ts. */
export function extensionEntry(): string {
  if (entryKind() === 'source') return join(REPO_ROOT, 'src', 'index.ts');
  if (installed) return installed;
  const dir = mkdtempSync(join(tmpdir(), 'pi-mcp-actors-installed-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.mjs'), join(dir, 'dist')], {
    stdio: 'ignore',
  });
  for (const file of ['package.json', 'index.ts']) copyFileSync(join(REPO_ROOT, file), join(dir, file));
  // The CLI too: the shared host is started as `bin/pi-mcp-actors.mjs host serve` from the package.
  cpSync(join(REPO_ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  installed = dir;
  return dir;
}

/** The build identity of the installed copy (its hosts' socket and snapshot names): version and bundle hash. */
export function installedBuild(): string {
  const hash = readFileSync(join(extensionEntry(), 'dist', 'build-id'), 'utf8')
    .trim()
    .slice(0, 12);
  return `${packageVersion()}-${hash}`;
}

let empty: string | undefined;

/**
 * A package whose extension does nothing: what Pi itself spends on any extension (loading jiti, compiling
 * and calling the entry) before the extension's own work. The anchor beside ours in the startup runs.
 */
export function emptyExtensionEntry(): string {
  if (empty) return empty;
  const dir = mkdtempSync(join(tmpdir(), 'pi-empty-extension-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'empty-extension', type: 'module', pi: { extensions: ['./extension.ts'] } }),
  );
  writeFileSync(join(dir, 'extension.ts'), 'export default function emptyExtension(): void {}\n');
  empty = dir;
  return dir;
}

let timed: string | undefined;

/**
 * Our installed extension wrapped to time its own work inside Pi: importing the bundle, the factory,
 * and each `session_start` handler. Each run appends one JSON line per measurement to the file named by
 * the PI_MCP_BENCH_TIMES environment variable.
 */
export function timedExtensionEntry(): string {
  if (timed) return timed;
  const installed = extensionEntry();
  const dir = mkdtempSync(join(tmpdir(), 'pi-timed-extension-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'timed-extension', type: 'module', pi: { extensions: ['./extension.ts'] } }),
  );
  const bundle = pathToFileURL(join(installed, 'dist', 'index.js')).href;
  writeFileSync(
    join(dir, 'extension.ts'),
    `import { appendFileSync } from 'node:fs';
const note = (what: string, ms: number) =>
  appendFileSync(process.env.PI_MCP_BENCH_TIMES!, JSON.stringify({ what, ms }) + '\\n');
export default async function timed(pi: any): Promise<void> {
  const t0 = performance.now();
  const entry = await import(${JSON.stringify(bundle)});
  const t1 = performance.now();
  const timedOn = (event: string, handler: any) =>
    pi.on(event, event !== 'session_start' ? handler : async (e: any, ctx: any) => {
      const s = performance.now();
      try { return await handler(e, ctx); } finally { note('session_start', performance.now() - s); }
    });
  entry.default(new Proxy(pi, {
    get: (target, name) => {
      if (name === 'on') return timedOn;
      const value = target[name];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }));
  note('import', t1 - t0);
  note('factory', performance.now() - t1);
}
`,
  );
  timed = dir;
  return dir;
}
