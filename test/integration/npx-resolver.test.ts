// npx resolution against a real package that npm itself installed into a (persistent, test-only) npm
// cache: resolve it, spawn it directly, list its tools over MCP, and compare the process tree with
// plain `npx`. The first run downloads the package from the npm registry (a few seconds); later runs
// reuse .cache/npx-resolver-test/.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { withNpxResolution } from '../../src/adapters/mcp/npx-connector.ts';
import { npxInstallDirName, resolveNpx } from '../../src/adapters/mcp/npx-resolver.ts';
import { endProcessGroup, spawnInGroup } from '../../src/adapters/mcp/process-group.ts';
import type { Connector } from '../../src/machines/server-types.ts';
import { ConnectError } from '../../src/ports/mcp.ts';
import { definition } from '../fixtures/cache/definition.ts';
import { processTree, totalRssMb } from '../fixtures/cache/process-tree.ts';
import { listToolsOverStdio } from '../fixtures/cache/stdio-tools.ts';

const SPEC = '@modelcontextprotocol/server-everything@2026.8.31';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const npmCache = join(repoRoot, '.cache', 'npx-resolver-test', 'npm-cache');
const installDir = join(npmCache, '_npx', npxInstallDirName([SPEC]));
const binFile = join(
  installDir,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

// Children must not inherit npm's script environment (`npm test` sets npm_config_*, including the
// project as local prefix, which would make npx run the repo's own copy).
const baseEnv: Record<string, string> = {};
for (const [key, value] of Object.entries(process.env)) {
  if (value !== undefined && !/^npm_/i.test(key)) baseEnv[key] = value;
}
const npmEnv = {
  ...baseEnv,
  npm_config_cache: npmCache,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
};

let work: string;

function installedByNpm(): boolean {
  try {
    const manifest = JSON.parse(fs.readFileSync(join(installDir, 'package.json'), 'utf8'));
    return Array.isArray(manifest._npx?.packages) && fs.existsSync(binFile);
  } catch {
    return false;
  }
}

beforeAll(async () => {
  work = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'npx-resolver-it-')));
  if (!installedByNpm()) {
    // Let npm itself lay out `_npx/<hash>/` (the same directory `npx -y <spec>` uses).
    await promisify(execFile)('npm', ['exec', '--yes', `--package=${SPEC}`, '--', 'node', '-e', '0'], {
      cwd: work,
      env: npmEnv,
      timeout: 240_000,
    });
  }
  expect(installedByNpm()).toBe(true);
}, 300_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function startAndList(command: string, args: string[]) {
  const child = spawnInGroup(command, args, { env: npmEnv, cwd: work });
  try {
    const started = performance.now();
    const tools = await listToolsOverStdio(child, 60_000);
    const readyMs = performance.now() - started;
    const tree = processTree(child.pid!);
    return { tools, tree, readyMs };
  } finally {
    await endProcessGroup(child);
  }
}

const isNpm = (command: string) => /npm-cli\.js|npx-cli\.js|(^|\/)np[mx]( |$)/.test(command);

const label = (command: string) =>
  isNpm(command)
    ? command.split(' ').slice(0, 2).join(' ')
    : command.split(' ').at(-1)!.split('/').slice(-3).join('/');
const describeTree = (tree: ReturnType<typeof processTree>) =>
  tree.map((p) => `${label(p.command)} ${(p.rssKb / 1024).toFixed(1)} MB`).join(', ');

describe('npx resolution with a real npm install', () => {
  it('resolves `npx -y <pkg>@<version>` to node + the installed bin', () => {
    const resolution = resolveNpx('npx', ['-y', SPEC, 'stdio'], {
      npmCacheDir: npmCache,
      cacheFile: join(work, 'agent', 'mcp-npx-cache.json'),
      cwd: work,
      env: npmEnv,
    });
    expect(resolution).toEqual({
      command: process.execPath,
      args: [fs.realpathSync(binFile), 'stdio'],
      via: 'direct-node',
    });
  });

  it('finds the same install through npm_config_cache alone', () => {
    const resolution = resolveNpx('npx', ['-y', SPEC], {
      cacheFile: join(work, 'agent2', 'mcp-npx-cache.json'),
      cwd: work,
      env: npmEnv,
    });
    expect(resolution?.args).toEqual([fs.realpathSync(binFile)]);
  });

  it('the resolved command serves the same tools as plain npx, without npm in its process tree', async () => {
    const resolution = resolveNpx('npx', ['-y', SPEC], {
      npmCacheDir: npmCache,
      cacheFile: join(work, 'agent', 'mcp-npx-cache.json'),
      cwd: work,
      env: npmEnv,
    });
    expect(resolution).toBeDefined();
    const direct = await startAndList(resolution!.command, resolution!.args);
    expect(direct.tools).toContain('echo');
    expect(direct.tree.filter((p) => isNpm(p.command))).toEqual([]);

    const viaNpx = await startAndList('npx', ['-y', SPEC]);
    expect([...viaNpx.tools].sort()).toEqual([...direct.tools].sort());
    expect(viaNpx.tree.some((p) => isNpm(p.command))).toBe(true);

    console.log(
      [
        `npx resolution, ${SPEC} after initialize + tools/list (${direct.tools.length} tools), process-tree RSS:`,
        `  direct: ${totalRssMb(direct.tree)} MB in ${direct.tree.length} process(es), ready in ${direct.readyMs.toFixed(0)} ms [${describeTree(direct.tree)}]`,
        `  npx:    ${totalRssMb(viaNpx.tree)} MB in ${viaNpx.tree.length} process(es), ready in ${viaNpx.readyMs.toFixed(0)} ms [${describeTree(viaNpx.tree)}]`,
      ].join('\n'),
    );
  }, 180_000);
});

describe('withNpxResolution around the real connector', () => {
  it('starts an npx server directly from the npm cache and lists its tools over MCP', async () => {
    const connect = withNpxResolution(connectMcp, join(work, 'agent3', 'mcp-npx-cache.json'));
    const connection = await connect(
      definition('everything', {
        command: 'npx',
        args: ['-y', SPEC],
        cwd: work,
        env: { npm_config_cache: npmCache },
      }),
      { signal: new AbortController().signal },
    );
    try {
      expect(connection.catalog.tools.map((t) => t.name)).toContain('echo');
      const commands = processTree(connection.pid!).map((p) => p.command);
      expect(commands[0]).toContain('/_npx/');
      expect(commands.some((c) => /(^|\/)(npm|npx)(-cli\.js)?( |$)/.test(c))).toBe(false);
    } finally {
      await connection.close();
    }
  });

  it('falls back to plain npx when the package is not in the cache', async () => {
    const calls: string[] = [];
    const recording: Connector = async (def) => {
      calls.push(`${def.command} ${def.args.join(' ')}`);
      throw new ConnectError('protocol', 'stop here');
    };
    const connect = withNpxResolution(recording, join(work, 'agent4', 'mcp-npx-cache.json'));
    await expect(
      connect(
        definition('missing', {
          command: 'npx',
          args: ['-y', 'no-such-package-xyz@1.0.0'],
          cwd: work,
          env: { npm_config_cache: npmCache },
        }),
        {
          signal: new AbortController().signal,
        },
      ),
    ).rejects.toThrow('stop here');
    expect(calls).toEqual(['npx -y no-such-package-xyz@1.0.0']);
  });
});
