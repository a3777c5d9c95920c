// Load: 10 stdio servers × 32 concurrent calls, in bursts with pauses long enough for idle shutdown
// (so servers close and reopen under load): no lost, duplicated or crossed answer, no error (so idle
// shutdown never cut a call), in-flight counts exact. The test runs a few seconds; `npm run bench`
// runs the same driver for a minute and reports the figures.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { definition } from '../support/config.ts';
import { runLoad } from '../support/reliability.ts';
import { resultText, startRuntime } from '../support/runtime.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pi-mcp-load-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('load', () => {
  it('10 servers × 32 concurrent calls: every answer to its own call, exactly once; idle shutdown cuts none', async () => {
    const figures = await runLoad({
      servers: 10,
      concurrency: 32,
      durationMs: 8_000,
      burstMs: 1_500,
      pauseMs: 2_000,
      idleTimeoutMs: 150,
      dir,
    });
    console.log(`load: ${JSON.stringify(figures)}`);
    expect(figures.firstError).toBeUndefined();
    expect(figures).toMatchObject({ errors: 0, lost: 0, duplicated: 0, crossed: 0 });
    expect(figures.calls).toBeGreaterThan(320);
    expect(figures.maxInFlight).toBeLessThanOrEqual(32);
    expect(figures.idleShutdowns).toBeGreaterThan(0);
  }, 120_000);

  it('the in-flight count is exact: 32 running calls read 32, and 0 once they are answered', async () => {
    const runtime = await startRuntime(
      [definition({ name: 'busy', transport: 'stdio', ...stdioFixture(['--reliability-tools']) })],
      { tempDir: dir },
    );
    try {
      const ref = runtime.servers().busy!;
      const calls = Array.from({ length: 32 }, (_, i) =>
        runtime.callTool('busy__slow_echo', { text: `call ${i}`, ms: 1_500 }),
      );
      await waitFor(ref, (s) => s.context.inFlight === 32, { timeout: 20_000 });
      const results = await Promise.all(calls);
      expect(results.map(resultText)).toEqual(Array.from({ length: 32 }, (_, i) => `call ${i}`));
      expect(ref.getSnapshot().context.inFlight).toBe(0);
    } finally {
      await runtime.stop();
      runtime.dispose();
    }
  }, 60_000);
});
