// Which copy of the extension the real-Pi benchmarks load. By default the one an installed user runs:
// package.json, extension.ts and the dist/ bundle (`scripts/build.mjs`), built once per bench process
// into a temp folder that is removed at exit. `--entry=source` (BENCH_ENTRY=source) loads the
// checkout's TypeScript sources through Pi's jiti instead, as a developer's `-e .` does.

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  for (const file of ['package.json', 'extension.ts']) copyFileSync(join(REPO_ROOT, file), join(dir, file));
  installed = dir;
  return dir;
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
