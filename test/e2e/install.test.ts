// The README's install route, as a newcomer follows it: the lines between the README's
// `install-commands` markers run one by one, as written, in a copy of the clone with a clean HOME and
// an npm prefix in a temp folder (nothing global on this machine is touched), `pi` being the real Pi.
// Then a print-mode Pi run with the installed copy, no `-e`, searches a server's tools and calls one,
// and the CLI the README put on PATH answers from another folder.
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
import { dirname, join, resolve } from 'node:path';
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

/** The shell lines between the README's install-commands markers, as written (blank lines dropped). */
function readmeInstallLines(): string[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const block = /<!-- install-commands[^>]*-->\s*```bash\n([\s\S]*?)```\s*<!-- \/install-commands -->/.exec(
    readme,
  );
  if (!block) throw new Error('README.md has no install-commands block');
  return (block[1] as string).split('\n').filter((line) => line.trim() !== '');
}

let lines: string[];
let ran: { line: string; status: number | null; output: string }[];
let env: Record<string, string>;
let prefix: string;
let checkout: string;

beforeAll(async () => {
  await ensurePi();
  work = mkdtempSync(join(tmpdir(), 'pi-mcp-install-'));
  checkout = join(work, 'pi-mcp-actors');
  copyRepository(checkout);
  world = await createWorld({
    script: [
      { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'echo text back' } }] },
      { toolCalls: [{ id: 'call_echo', name: 'fx__echo', arguments: { text: 'from the installed copy' } }] },
      { text: 'done' },
    ],
    mcpJson: { mcpServers: { fx: stdioEntry(marker) } },
  });
  // The newcomer's `pi`: the real Pi 1.5.2 on its Node 22, as a command on PATH.
  const bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'pi'), `#!/bin/sh\nexec '${node22Path}' '${piCliPath}' "$@"\n`, { mode: 0o755 });
  prefix = join(work, 'npm-prefix');
  env = {
    ...world.dir.env,
    PATH: `${bin}:${join(prefix, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    npm_config_prefix: prefix,
    npm_config_update_notifier: 'false',
  };
  lines = readmeInstallLines();
  ran = [];
  for (const line of lines) {
    // `npm ci` would download the dev dependencies again; the copy links this clone's instead.
    if (line.replace(/#.*$/, '').trim() === 'npm ci') continue;
    const result = spawnSync('bash', ['-c', line], {
      cwd: checkout,
      env,
      encoding: 'utf8',
      timeout: 180_000,
    });
    ran.push({ line, status: result.status, output: `${result.stdout}${result.stderr}` });
    if (result.status !== 0) break;
  }
  installed = join(prefix, 'lib', 'node_modules', 'pi-mcp-actors');
  settingsRecorded = JSON.parse(readFileSync(join(world.dir.agentDir, 'settings.json'), 'utf8')).packages;
  run = await runPiPrint({ dir: world.dir, prompt: 'Echo with an MCP tool', timeoutMs: 60_000 });
}, ENSURE_PI_TIMEOUT_MS);

afterAll(async () => {
  await world?.cleanup();
  killMarked(marker);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the README's install lines, in a clean HOME", () => {
  it('are the four steps: npm ci, npm pack, the tarball installed globally, Pi pointed at it', () => {
    expect(lines.map((line) => line.replace(/#.*$/, '').trim().split(' ').slice(0, 2).join(' '))).toEqual([
      'npm ci',
      'npm pack',
      'npm install',
      'pi install',
    ]);
    for (const step of ran) expect(step.status, `${step.line}\n${step.output}`).toBe(0);
    expect(ran).toHaveLength(3);
  });

  it('install the bundle alone, and Pi records that folder: no runtime dependency, no sources, small', () => {
    // Pi writes a local path relative to its settings file.
    expect((settingsRecorded as string[]).map((path) => resolve(world.dir.agentDir, path))).toEqual([
      installed,
    ]);
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
    expect(existsSync(join(installed, 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(installed, 'src', 'index.ts'))).toBe(false);
    // Data the bundle reads at run time ships beside it.
    expect(existsSync(join(installed, 'src', 'catalog', 'search', 'wordnet-synonyms.txt'))).toBe(true);
    expect(existsSync(join(installed, 'docs', 'statecharts', 'server.svg'))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
    const bytes = sizeOf(installed);
    console.info(`installed size: ${(bytes / 1024 / 1024).toFixed(1)} MB in ${installed}`);
    expect(bytes).toBeLessThan(30 * 1024 * 1024);
  });

  it('a print-mode Pi run (no -e) loads the installed copy, searches the server and calls its tool', () => {
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

  it('puts `pi-mcp-actors` on PATH: it answers in another folder, from the cache the Pi run wrote', () => {
    const where = spawnSync('bash', ['-c', 'command -v pi-mcp-actors'], {
      cwd: world.dir.projectDir,
      env,
      encoding: 'utf8',
    });
    expect(where.stdout.trim()).toBe(join(prefix, 'bin', 'pi-mcp-actors'));
    const help = spawnSync('pi-mcp-actors', ['--help'], { cwd: world.dir.projectDir, env, encoding: 'utf8' });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: pi-mcp-actors <command>/);
    const result = spawnSync('pi-mcp-actors', ['search', 'echo text back', '--json'], {
      cwd: world.dir.projectDir,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout, result.stdout + result.stderr).toContain('fx__echo');
  });
});
