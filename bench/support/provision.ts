// What the benchmarks need beyond `npm ci`, fetched from the npm registry into .cache/bench/ once:
// the five real MCP servers of the side-by-side run, pi-mcp-adapter 2.36.0 with its own node_modules,
// and an npm cache in which `npx -y <server>` has been installed (for the npx-resolution memory figure).
// Each part writes a marker with its versions last, so an interrupted run is redone, a finished one is not.

import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const BENCH_CACHE = join(REPO_ROOT, '.cache', 'bench');

export const SERVER_PACKAGES = {
  everything: '@modelcontextprotocol/server-everything@2026.8.31',
  filesystem: '@modelcontextprotocol/server-filesystem@2026.8.31',
  memory: '@modelcontextprotocol/server-memory@2026.8.31',
  github: '@modelcontextprotocol/server-github@2025.4.8',
  playwright: '@playwright/mcp@0.0.83',
} as const;
export const ADAPTER_SPEC = 'pi-mcp-adapter@2.36.0';
/** A small real MCP server for the npx-resolution memory figure. */
export const NPX_SPEC = '@modelcontextprotocol/server-memory@2026.8.31';

export const SERVERS_DIR = join(BENCH_CACHE, 'servers');
export const ADAPTER_DIR = join(BENCH_CACHE, 'pi-mcp-adapter');
export const NPM_CACHE = join(BENCH_CACHE, 'npm-cache');

const run = promisify(execFile);

/** The environment for child npm/npx: ours without npm's script variables (`npm run` sets a local prefix). */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !/^npm_/i.test(key)) env[key] = value;
  return {
    ...env,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    ...extra,
  };
}

function markerOk(dir: string, wanted: unknown): boolean {
  try {
    return readFileSync(join(dir, '.bench-ready.json'), 'utf8') === JSON.stringify(wanted);
  } catch {
    return false;
  }
}

function npm(args: string[], cwd: string, env = cleanEnv()) {
  return run('npm', args, { cwd, env, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 });
}

async function provisionServers(): Promise<void> {
  const wanted = { packages: SERVER_PACKAGES };
  if (markerOk(SERVERS_DIR, wanted)) return;
  rmSync(SERVERS_DIR, { recursive: true, force: true });
  mkdirSync(SERVERS_DIR, { recursive: true });
  writeFileSync(join(SERVERS_DIR, 'package.json'), '{"name":"bench-servers","private":true}\n');
  await npm(
    ['install', '--omit=dev', '--no-audit', '--no-fund', '-E', ...Object.values(SERVER_PACKAGES)],
    SERVERS_DIR,
  );
  writeFileSync(join(SERVERS_DIR, '.bench-ready.json'), JSON.stringify(wanted));
}

/**
 * pi-mcp-adapter, unpacked with its own node_modules. Several test workers may ask at once: each
 * prepares its own folder (marker inside) and publishes it with one rename; the first rename wins.
 */
export async function provisionAdapter(): Promise<void> {
  const wanted = { spec: ADAPTER_SPEC };
  if (markerOk(ADAPTER_DIR, wanted)) return;
  const work = `${ADAPTER_DIR}.tmp-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const { stdout } = await npm(['pack', ADAPTER_SPEC, '--silent'], work);
    const tarball = stdout.trim().split('\n').at(-1)!;
    await run('tar', ['xzf', tarball], { cwd: work });
    const pkgDir = join(work, 'package');
    // Its devDependencies name a Pi version the registry lacks; they are not needed to run it. Pi itself
    // provides the peer packages (pi-ai, pi-tui, typebox), so peers are not installed either.
    const manifestFile = join(pkgDir, 'package.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    delete manifest.devDependencies;
    delete manifest.scripts;
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
    await npm(['install', '--omit=dev', '--no-audit', '--no-fund', '--legacy-peer-deps'], pkgDir);
    writeFileSync(join(pkgDir, '.bench-ready.json'), JSON.stringify(wanted));
    if (markerOk(ADAPTER_DIR, wanted)) return;
    // A folder without the wanted marker is an older or broken copy.
    rmSync(ADAPTER_DIR, { recursive: true, force: true });
    try {
      renameSync(pkgDir, ADAPTER_DIR);
    } catch (error) {
      if (!markerOk(ADAPTER_DIR, wanted)) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `npx -y NPX_SPEC` installs into `<NPM_CACHE>/_npx/<hash>/`; npm itself lays it out. */
async function provisionNpxCache(): Promise<void> {
  const wanted = { spec: NPX_SPEC };
  if (markerOk(NPM_CACHE, wanted)) return;
  mkdirSync(NPM_CACHE, { recursive: true });
  await npm(
    ['exec', '--yes', `--package=${NPX_SPEC}`, '--', 'node', '-e', '0'],
    BENCH_CACHE,
    cleanEnv({ npm_config_cache: NPM_CACHE }),
  );
  writeFileSync(join(NPM_CACHE, '.bench-ready.json'), JSON.stringify(wanted));
}

/** Provisions every part (in parallel); returns how long it took and what failed. */
export async function provisionBench(): Promise<{ ms: number; failures: Record<string, string> }> {
  const started = performance.now();
  mkdirSync(BENCH_CACHE, { recursive: true });
  const failures: Record<string, string> = {};
  const parts: Record<string, () => Promise<void>> = {
    servers: provisionServers,
    adapter: provisionAdapter,
    npxCache: provisionNpxCache,
  };
  await Promise.all(
    Object.entries(parts).map(([name, fn]) =>
      fn().catch((error: unknown) => {
        failures[name] = String((error as { stderr?: string }).stderr || error).slice(0, 2000);
      }),
    ),
  );
  return { ms: performance.now() - started, failures };
}

/** Entry file of an installed server package (its `bin`). */
export function serverEntry(name: keyof typeof SERVER_PACKAGES): string {
  const spec = SERVER_PACKAGES[name];
  const pkgName = spec.slice(0, spec.lastIndexOf('@'));
  const dir = join(SERVERS_DIR, 'node_modules', ...pkgName.split('/'));
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const bin =
    typeof manifest.bin === 'string'
      ? manifest.bin
      : Object.values(manifest.bin as Record<string, string>)[0]!;
  return join(dir, bin);
}
