// The package as users get it: `npm pack` (which bundles it), installed the way `pi install npm:…`
// installs a package (the real Pi CLI runs npm into a clean HOME, production dependencies only), then
// a print-mode Pi run with that installed copy, no `-e`, searches a server's tools and calls one.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node22Path, piCliPath, repoRoot } from '../../scripts/pi-paths.mjs';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, toolNames } from './harness/fake-llm.ts';
import {
  BUILTINS,
  killMarked,
  loadedByToolSearch,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import { type PiRunResult, runPiPrint } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const marker = uniqueMarker('install');
let work: string;
let world: World;
let installed: string;
let install: { status: number | null; output: string };
let settingsRecorded: unknown;
let run: PiRunResult;

/** Bytes of every file below `dir` (symlinks not followed). */
function sizeOf(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    total += stat.isDirectory() ? sizeOf(path) : stat.size;
  }
  return total;
}

/** The repository's files (tracked and new, not ignored) copied to `to`, so packing writes nothing here. */
function copyRepository(to: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(repoRoot, file)));
  for (const file of files) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    cpSync(join(repoRoot, file), join(to, file));
  }
  // The build (prepack) needs esbuild and the sources' dependencies.
  symlinkSync(join(repoRoot, 'node_modules'), join(to, 'node_modules'));
}

beforeAll(async () => {
  await ensurePi();
  work = mkdtempSync(join(tmpdir(), 'pi-mcp-install-'));
  const checkout = join(work, 'checkout');
  copyRepository(checkout);
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
    cwd: checkout,
    encoding: 'utf8',
  });
  const tarball = join(work, packed.trim().split('\n').at(-1) as string);

  world = await createWorld({
    script: [
      { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'echo text back' } }] },
      { toolCalls: [{ id: 'call_echo', name: 'fx__echo', arguments: { text: 'from the installed copy' } }] },
      { text: 'done' },
    ],
    mcpJson: { mcpServers: { fx: stdioEntry(marker) } },
  });
  // `pi install` runs npm; it needs npm's node on PATH, the registry never (no runtime dependencies).
  const result = spawnSync(node22Path, [piCliPath, 'install', `npm:${tarball}`], {
    cwd: world.dir.projectDir,
    env: { PATH: `${dirname(node22Path)}:${process.env.PATH ?? ''}`, ...world.dir.env },
    encoding: 'utf8',
    timeout: 180_000,
  });
  install = { status: result.status, output: `${result.stdout}${result.stderr}` };
  installed = join(world.dir.agentDir, 'npm');
  // Installed from the registry, the package is recorded by name; offline (PI_OFFLINE=1) Pi then loads
  // the installed copy. Record it so, as `pi install npm:pi-mcp-actors` would have.
  const settingsFile = join(world.dir.agentDir, 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  settingsRecorded = settings.packages;
  writeFileSync(settingsFile, JSON.stringify({ ...settings, packages: ['npm:pi-mcp-actors'] }));
  run = await runPiPrint({ dir: world.dir, prompt: 'Echo with an MCP tool', timeoutMs: 60_000 });
}, ENSURE_PI_TIMEOUT_MS);

afterAll(async () => {
  await world?.cleanup();
  killMarked(marker);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('pi install npm:pi-mcp-actors (from the packed tarball)', () => {
  it('installs the bundle alone: no runtime dependency, no sources, small', () => {
    expect(install.status, install.output).toBe(0);
    expect(settingsRecorded).toEqual([expect.stringMatching(/^npm:.*pi-mcp-actors-0\.1\.0\.tgz$/)]);
    expect(readdirSync(join(installed, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual([
      'pi-mcp-actors',
    ]);
    const pkg = join(installed, 'node_modules', 'pi-mcp-actors');
    expect(existsSync(join(pkg, 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(pkg, 'src', 'index.ts'))).toBe(false);
    // Data the bundle reads at run time ships beside it.
    expect(existsSync(join(pkg, 'src', 'catalog', 'search', 'wordnet-synonyms.txt'))).toBe(true);
    expect(existsSync(join(pkg, 'docs', 'statecharts', 'server.svg'))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
    const bytes = sizeOf(installed);
    console.info(`installed size: ${(bytes / 1024 / 1024).toFixed(1)} MB in ${installed}`);
    expect(bytes).toBeLessThan(30 * 1024 * 1024);
  });

  it('a print-mode Pi run with the installed copy searches the server and calls its tool', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const [first, second, third] = world.llm.requests.map((r) => r.body) as ChatRequestBody[];
    expect(toolNames(first as ChatRequestBody), run.stderr + run.stdout).toEqual([...BUILTINS, TOOL_SEARCH]);
    expect(loadedByToolSearch(toolResultFor(second as ChatRequestBody, 'call_search') ?? '')).toContain(
      'fx__echo',
    );
    expect(toolResultFor(third as ChatRequestBody, 'call_echo')).toBe('from the installed copy');
    expect(run.stdout).toContain('done');
  });

  it('the installed CLI (the bundle) answers from the cache the Pi run wrote', () => {
    const bin = join(installed, 'node_modules', 'pi-mcp-actors', 'bin', 'pi-mcp-actors.mjs');
    const result = spawnSync(process.execPath, [bin, 'search', 'echo text back', '--json'], {
      cwd: world.dir.projectDir,
      env: { PATH: process.env.PATH ?? '', ...world.dir.env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout, result.stdout + result.stderr).toContain('fx__echo');
  });
});
