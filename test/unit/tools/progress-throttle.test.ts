import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { PROGRESS_INTERVAL_MS, throttleProgress } from '../../../src/tools/progress-throttle.ts';

describe('throttleProgress', () => {
  it('sends the first at once, then at most one per interval (the latest), and the last on flush', () => {
    const clock = new SimulatedClock();
    const sent: number[] = [];
    const progress = throttleProgress<number>((n) => sent.push(n), clock);
    for (let n = 1; n <= 1_000; n++) progress.update(n);
    expect(sent).toEqual([1]);
    clock.increment(PROGRESS_INTERVAL_MS);
    expect(sent).toEqual([1, 1_000]);
    progress.update(1_001);
    progress.update(1_002);
    clock.increment(PROGRESS_INTERVAL_MS - 1);
    expect(sent).toEqual([1, 1_000]);
    progress.flush();
    expect(sent).toEqual([1, 1_000, 1_002]);
    clock.increment(10 * PROGRESS_INTERVAL_MS);
    expect(sent).toEqual([1, 1_000, 1_002]);
  });

  it('an update after a quiet interval goes at once; flush with nothing pending sends nothing', () => {
    const clock = new SimulatedClock();
    const sent: number[] = [];
    const progress = throttleProgress<number>((n) => sent.push(n), clock);
    progress.update(1);
    clock.increment(PROGRESS_INTERVAL_MS);
    clock.increment(PROGRESS_INTERVAL_MS);
    progress.update(2);
    expect(sent).toEqual([1, 2]);
    progress.flush();
    expect(sent).toEqual([1, 2]);
  });
});
