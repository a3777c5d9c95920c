// 5. Memory. (a) Heap per idle server actor: 1,000 actors in a child `node --expose-gc` process
// (bench/memory/actor-heap.ts), next to minimal XState actors as the reference. (b) RSS of an
// `npx -y <server>` process tree vs the same server started through npx resolution
// (src/adapters/mcp/npx-resolver.ts): summed VmRSS over the tree after initialize + tools/list.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveNpx } from '../src/adapters/mcp/npx-resolver.ts';
import { endProcessGroup, spawnInGroup } from '../src/adapters/mcp/process-group.ts';
import { processTree } from '../test/fixtures/cache/process-tree.ts';
import { listToolsOverStdio } from '../test/fixtures/cache/stdio-tools.ts';
import { cleanEnv, NPM_CACHE, NPX_SPEC, REPO_ROOT } from './support/provision.ts';
import { median, ratio, round } from './support/stats.ts';

export interface ActorHeap {
  count: number;
  rounds: number;
  serverActorBytes: number;
  minimalActorBytes: number;
  server: number[];
  minimal: number[];
  ratioToMinimal: number;
}

export async function actorHeap(count = 1_000): Promise<ActorHeap> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', join(REPO_ROOT, 'bench', 'memory', 'actor-heap.ts'), String(count)],
    { cwd: REPO_ROOT, timeout: 120_000 },
  );
  const parsed = JSON.parse(stdout.trim().split('\n').at(-1)!);
  return { ...parsed, ratioToMinimal: ratio(parsed.serverActorBytes, parsed.minimalActorBytes) };
}

export interface TreeSample {
  rssMb: number;
  processes: number;
  readyMs: number;
  tools: number;
}

export interface NpxMemory {
  spec: string;
  runs: number;
  via: string;
  npx: { rssMb: number; processes: number; readyMs: number; samples: TreeSample[] };
  resolved: { rssMb: number; processes: number; readyMs: number; samples: TreeSample[] };
  rssRatio: number;
}

async function startAndMeasure(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<TreeSample> {
  const child = spawnInGroup(command, args, { env, cwd });
  try {
    const started = performance.now();
    const tools = await listToolsOverStdio(child, 60_000);
    const readyMs = performance.now() - started;
    const tree = processTree(child.pid!);
    return {
      rssMb: round(tree.reduce((n, p) => n + p.rssKb, 0) / 1024, 1),
      processes: tree.length,
      readyMs: round(readyMs, 1),
      tools: tools.length,
    };
  } finally {
    await endProcessGroup(child);
  }
}

export async function npxMemory(runs = 3): Promise<NpxMemory> {
  const work = mkdtempSync(join(tmpdir(), 'bench-npx-'));
  const env = cleanEnv({ npm_config_cache: NPM_CACHE, MEMORY_FILE_PATH: join(work, 'memory.jsonl') });
  try {
    const resolution = resolveNpx('npx', ['-y', NPX_SPEC], {
      npmCacheDir: NPM_CACHE,
      cacheFile: join(work, 'agent', 'mcp-npx-cache.json'),
      cwd: work,
      env,
    });
    if (!resolution) throw new Error(`npx resolution found no install of ${NPX_SPEC} in ${NPM_CACHE}`);
    const npx: TreeSample[] = [];
    const resolved: TreeSample[] = [];
    for (let i = 0; i < runs; i++) {
      npx.push(await startAndMeasure('npx', ['-y', NPX_SPEC], env, work));
      resolved.push(await startAndMeasure(resolution.command, resolution.args, env, work));
    }
    const pack = (samples: TreeSample[]) => ({
      rssMb: round(median(samples.map((s) => s.rssMb)), 1),
      processes: median(samples.map((s) => s.processes)),
      readyMs: round(median(samples.map((s) => s.readyMs)), 1),
      samples,
    });
    const a = pack(npx);
    const b = pack(resolved);
    return {
      spec: NPX_SPEC,
      runs,
      via: resolution.via,
      npx: a,
      resolved: b,
      rssRatio: ratio(b.rssMb, a.rssMb),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
