// 1. Call overhead: a trivial stdio fixture tool (`echo`) called through our executor
// (runtime.callTool: server actor, lazy connect check, CALL_STARTED/FINISHED, content transform,
// output guard) vs a bare SDK Client on a second copy of the same server. Sequential and 32 in flight.
// Blocks alternate between the two so machine noise hits both alike.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createRuntime } from '../src/actors/session-actor.ts';
import { connectMcp } from '../src/adapters/mcp/index.ts';
import type { LoadedConfig } from '../src/config/types.ts';
import { nullLogger } from '../src/logger.ts';
import { SecretValues } from '../src/redact/index.ts';
import { ensureConnected } from '../src/session/ensure-connected.ts';
import { silentHost } from '../src/session/host-port.ts';
import { serverDefinition } from '../test/fixtures/servers/definitions.ts';
import { stdioFixture } from '../test/fixtures/servers/spawn.ts';
import { loadedConfig } from '../test/support/config.ts';
import { ratio, round, type Summary, summarize } from './support/stats.ts';

export interface CallMode {
  calls: number;
  ours: Summary & { throughputPerS: number; errors: number };
  bare: Summary & { throughputPerS: number; errors: number };
  medianRatio: number;
  p99Ratio: number;
  throughputRatio: number;
}

export interface CallOverheadResult {
  server: string;
  /** `echo`: answers at once (tens of µs in the server). */
  sequential: CallMode;
  concurrent: CallMode & { inFlight: number };
  /** `progress` with one 5 ms step: a tool that works 5 ms in the server. */
  sequential5ms?: CallMode;
}

type CallFn = (i: number) => Promise<boolean>;

const CALLS = 1_000;
/** Calls of the 5 ms tool (sequential: 5 ms each). */
const SLOW_CALLS = 200;
const IN_FLIGHT = 32;
const BLOCKS = 4;

async function timedBlock(
  fn: CallFn,
  count: number,
  inFlight: number,
  times: number[],
): Promise<{ ms: number; errors: number }> {
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const t0 = performance.now();
      const ok = await fn(i);
      times.push(performance.now() - t0);
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { ms: performance.now() - started, errors };
}

async function compare(ours: CallFn, bare: CallFn, inFlight: number, calls = CALLS): Promise<CallMode> {
  const per = calls / BLOCKS;
  const acc = {
    ours: { times: [] as number[], ms: 0, errors: 0 },
    bare: { times: [] as number[], ms: 0, errors: 0 },
  };
  for (let b = 0; b < BLOCKS; b++) {
    const order = b % 2 === 0 ? (['ours', 'bare'] as const) : (['bare', 'ours'] as const);
    for (const who of order) {
      const r = await timedBlock(who === 'ours' ? ours : bare, per, inFlight, acc[who].times);
      acc[who].ms += r.ms;
      acc[who].errors += r.errors;
    }
  }
  const side = (who: 'ours' | 'bare') => ({
    ...summarize(acc[who].times),
    throughputPerS: round((acc[who].times.length / acc[who].ms) * 1000, 1),
    errors: acc[who].errors,
  });
  const o = side('ours');
  const r = side('bare');
  return {
    calls,
    ours: o,
    bare: r,
    medianRatio: ratio(o.medianMs, r.medianMs),
    p99Ratio: ratio(o.p99Ms, r.p99Ms),
    throughputRatio: ratio(o.throughputPerS, r.throughputPerS),
  };
}

export async function runCallOverhead(): Promise<CallOverheadResult> {
  const fixture = stdioFixture(['--no-resources']);
  const definition = serverDefinition({ name: 'fixture', ...fixture });
  const config: LoadedConfig = loadedConfig([definition]);
  const tempDir = mkdtempSync(join(tmpdir(), 'bench-calls-'));
  const runtime = createRuntime({
    secrets: new SecretValues(),
    host: silentHost(),
    connector: connectMcp,
    loadConfig: () => config,
    logger: nullLogger,
    tempDir,
  });
  const client = new Client({ name: 'bench-bare', version: '0.0.0' });
  try {
    await runtime.start({ cwd: tempDir, projectTrusted: false });
    const connected = await ensureConnected(runtime.servers().fixture!);
    if (!connected.ok) throw new Error(`fixture did not connect: ${connected.error.message}`);
    const echo = runtime.catalog().entries.find((e) => e.tool === 'echo');
    if (!echo) throw new Error('fixture has no echo tool');
    await client.connect(
      new StdioClientTransport({ command: fixture.command, args: fixture.args, stderr: 'ignore' }),
    );

    const ours: CallFn = async (i) => {
      const result = await runtime.callTool(echo.name, { text: `call ${i}` });
      return (
        !result.isError && result.content[0]?.type === 'text' && result.content[0].text.includes(`call ${i}`)
      );
    };
    const bare: CallFn = async (i) => {
      const result = await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
      const first = (result.content as Array<{ type: string; text?: string }>)[0];
      return !result.isError && first?.type === 'text' && Boolean(first.text?.includes(`call ${i}`));
    };
    // Warm-up (JIT, buffers) for both, not counted.
    await timedBlock(ours, 200, IN_FLIGHT, []);
    await timedBlock(bare, 200, IN_FLIGHT, []);
    const sequential = await compare(ours, bare, 1);
    const concurrent = await compare(ours, bare, IN_FLIGHT);
    const progress = runtime.catalog().entries.find((e) => e.tool === 'progress');
    if (!progress) throw new Error('fixture has no progress tool');
    const fiveMs = { steps: 1, intervalMs: 5 };
    const ours5: CallFn = async () => !(await runtime.callTool(progress.name, fiveMs)).isError;
    const bare5: CallFn = async () =>
      !(await client.callTool({ name: 'progress', arguments: fiveMs })).isError;
    const sequential5ms = await compare(ours5, bare5, 1, SLOW_CALLS);
    return {
      server: 'test/fixtures/servers/stdio-server.ts (bundled), tools echo and progress',
      sequential,
      concurrent: { ...concurrent, inFlight: IN_FLIGHT },
      sequential5ms,
    };
  } finally {
    await client.close().catch(() => undefined);
    await runtime.stop();
    runtime.dispose();
    rmSync(tempDir, { recursive: true, force: true });
  }
}
