// Churn: 200 session start/stop cycles through the Pi bridge (as /reload and /new do) with a lazy
// stdio server (called every 20 cycles), an eager and a keep-alive HTTP server, half the cycles
// stopping while they are still connecting. Nothing may be left behind: no process, actor, socket,
// timer, listener or file descriptor beyond the warm-up baseline, and the heap stays flat.
// (`npm run bench` runs the same driver with an eager stdio server too and reports the figures.)

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFixture, startHttpFixture } from '../fixtures/servers/spawn.ts';
import { runChurn } from '../support/reliability.ts';

let http: HttpFixture;
let dir: string;
beforeAll(async () => {
  http = await startHttpFixture();
  dir = mkdtempSync(join(tmpdir(), 'pi-mcp-churn-'));
});
afterAll(async () => {
  await http.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('churn', () => {
  it('200 session start/stop cycles leave nothing behind', async () => {
    const figures = await runChurn({
      cycles: 200,
      warmup: 10,
      dir,
      httpUrl: http.url,
      eagerStdio: false,
      callEvery: 20,
    });
    const { baseline, end } = figures;
    console.log(`churn: ${JSON.stringify(figures)}`);
    expect(figures.actorsLeft).toBe(0);
    expect(figures.serversLeft).toBe(0);
    expect(end.childProcesses).toBe(baseline.childProcesses);
    // A few handles come and go with the test runner itself (its own worker pipes and timers).
    expect(end.handleCount).toBeLessThanOrEqual(baseline.handleCount + 3);
    expect(end.handles.ProcessWrap ?? 0).toBe(baseline.handles.ProcessWrap ?? 0);
    expect(end.handles.TCPSocketWrap ?? 0).toBeLessThanOrEqual(baseline.handles.TCPSocketWrap ?? 0);
    expect(end.fileDescriptors).toBeLessThanOrEqual(baseline.fileDescriptors + 3);
    expect(end.processListeners).toBeLessThanOrEqual(baseline.processListeners);
    // 200 cycles would show a per-cycle leak of even ~100 KB; the bound leaves room for GC timing.
    expect(end.heapUsedMB - baseline.heapUsedMB).toBeLessThan(20);
  }, 600_000);
});
