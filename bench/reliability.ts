// 7. Reliability under churn and load: the drivers of test/reliability/ run longer, with figures.
//   churn: 200 session start/stop cycles through the Pi bridge with an eager stdio server too;
//   load:  10 stdio servers × 32 concurrent calls for a minute, in bursts with idle shutdowns.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpFixture } from '../test/fixtures/servers/spawn.ts';
import { type ChurnFigures, type LoadFigures, runChurn, runLoad } from '../test/support/reliability.ts';

export interface ReliabilityResult {
  churn: ChurnFigures;
  load: LoadFigures;
}

export async function runReliability(loadMs = 60_000): Promise<ReliabilityResult> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-mcp-bench-reliability-'));
  const http = await startHttpFixture();
  try {
    const churn = await runChurn({
      cycles: 200,
      warmup: 10,
      dir: join(dir, 'churn'),
      httpUrl: http.url,
      eagerStdio: true,
      callEvery: 10,
    });
    const load = await runLoad({
      servers: 10,
      concurrency: 32,
      durationMs: loadMs,
      burstMs: 5_000,
      pauseMs: 2_000,
      idleTimeoutMs: 500,
      dir: join(dir, 'load'),
    });
    return { churn, load };
  } finally {
    await http.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
