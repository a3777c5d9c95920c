// One timed run of the real Pi (print mode) against a scripted fake model: when each model request
// arrived, when Pi exited, and the peak RSS / process count of Pi's process tree (sampled from /proc).

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { node22Path, piCliPath } from '../../scripts/pi-paths.mjs';
import type { AgentDir } from '../../test/e2e/harness/agent-dir.ts';
import { type ChatRequestBody, type ScriptStep, startFakeLlm } from '../../test/e2e/harness/fake-llm.ts';
import { piArgs } from '../../test/e2e/harness/run-pi.ts';
import { processTree } from '../../test/fixtures/cache/process-tree.ts';

/** May wait before it answers (a barrier between sessions); `thinkMs` is spent before it is asked. */
export type Step = (body: ChatRequestBody, index: number) => ScriptStep | Promise<ScriptStep>;

export interface PiRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Request bodies, in arrival order. */
  bodies: ChatRequestBody[];
  /** ms after spawn at which request i arrived. */
  arrivals: number[];
  /** ms after spawn at which request i had been answered (the whole SSE written, after any thinking). */
  answered: number[];
  /**
   * CPU time (ms) Pi's main thread had used when request i arrived (Linux /proc schedstat; empty
   * elsewhere): unlike wall time, it does not grow with the machine's load.
   */
  cpuAtArrivalMs: number[];
  wallMs: number;
  /** CPU time (ms) of Pi's main thread at the last sample before it exited (Linux; NaN elsewhere). */
  cpuAtExitMs: number;
  peakRssMb: number;
  /** Peak RSS of Pi's own process (without the servers it started). */
  piPeakRssMb: number;
  maxProcesses: number;
}

export interface PiRunOptions {
  /** Agent dir whose models.json will be pointed at the fake model's port (rewritten each run). */
  dir: AgentDir;
  extensions?: string[];
  args?: string[];
  env?: Record<string, string>;
  prompt: string;
  step: Step;
  timeoutMs?: number;
  sampleEveryMs?: number;
  /** The model "thinks" this long before it answers each request (real models take seconds). */
  thinkMs?: number;
  /** Told Pi's pid once it is spawned (to look at its process tree while it runs). */
  onSpawn?: (pid: number) => void;
}

function piEnv(dir: AgentDir, extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' };
  for (const key of ['TMPDIR', 'LANG', 'LC_ALL'] as const) {
    const value = process.env[key];
    if (value) base[key] = value;
  }
  return { ...base, ...dir.env, ...extra };
}

export async function runPiTimed(opts: PiRunOptions): Promise<PiRun> {
  const bodies: ChatRequestBody[] = [];
  const arrivals: number[] = [];
  const answered: number[] = [];
  const cpuAtArrivalMs: number[] = [];
  let spawnedAt = 0;
  let piPid: number | undefined;
  const llm = await startFakeLlm({
    script: async (body, index) => {
      arrivals[index] = performance.now() - spawnedAt;
      const cpu = piPid === undefined ? undefined : mainThreadCpuMs(piPid);
      if (cpu !== undefined) cpuAtArrivalMs[index] = cpu;
      bodies[index] = body;
      if (opts.thinkMs) await new Promise((resolve) => setTimeout(resolve, opts.thinkMs));
      const step = await opts.step(body, index);
      // The step is written synchronously right after this returns; a microtask later it is sent.
      queueMicrotask(() => {
        answered[index] = performance.now() - spawnedAt;
      });
      return step;
    },
  });
  const modelsFile = join(opts.dir.agentDir, 'models.json');
  const models = JSON.parse(readFileSync(modelsFile, 'utf8'));
  models.providers.fake.baseUrl = llm.baseUrl;
  writeFileSync(modelsFile, JSON.stringify(models, null, 2));

  const argv = [
    ...piArgs({ dir: opts.dir, extensions: opts.extensions ?? [], args: opts.args ?? [] }, 'print'),
    '--',
    opts.prompt,
  ];
  spawnedAt = performance.now();
  const child = spawn(node22Path, [piCliPath, ...argv], {
    cwd: opts.dir.projectDir,
    env: piEnv(opts.dir, opts.env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  piPid = child.pid;
  if (piPid !== undefined) opts.onSpawn?.(piPid);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  let peakKb = 0;
  let piPeakKb = 0;
  let lastCpuMs = Number.NaN;
  let maxProcesses = 0;
  const sample = () => {
    if (child.pid === undefined) return;
    const tree = processTree(child.pid);
    const kb = tree.reduce((n, p) => n + p.rssKb, 0);
    if (kb > peakKb) peakKb = kb;
    const cpu = mainThreadCpuMs(child.pid);
    if (cpu !== undefined) lastCpuMs = cpu;
    const own = tree.find((p) => p.pid === child.pid)?.rssKb ?? 0;
    if (own > piPeakKb) piPeakKb = own;
    if (tree.length > maxProcesses) maxProcesses = tree.length;
  };
  const sampler = setInterval(sample, opts.sampleEveryMs ?? 40);
  let timedOut = false;
  const killer = setTimeout(() => {
    timedOut = true;
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }, opts.timeoutMs ?? 60_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c));
  }).finally(() => {
    clearInterval(sampler);
    clearTimeout(killer);
  });
  const wallMs = performance.now() - spawnedAt;
  // Anything Pi left in its process group goes now (servers are expected to be gone already).
  if (child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // nothing left
    }
  }
  await llm.close();
  return {
    code,
    stdout,
    stderr,
    timedOut,
    bodies,
    arrivals,
    answered,
    cpuAtArrivalMs,
    wallMs,
    cpuAtExitMs: lastCpuMs,
    peakRssMb: Math.round(peakKb / 102.4) / 10,
    piPeakRssMb: Math.round(piPeakKb / 102.4) / 10,
    maxProcesses,
  };
}

/** On-CPU time of a process's main thread in ms (the first field of /proc/PID/schedstat is ns). */
function mainThreadCpuMs(pid: number): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    return Number.isFinite(ns) && ns > 0 ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
