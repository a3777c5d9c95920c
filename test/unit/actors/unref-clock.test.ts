import { describe, expect, it } from 'vitest';
import { unrefClock } from '../../../src/actors/unref-clock.ts';

describe('unrefClock', () => {
  it('schedules real timers that do not keep the process alive', async () => {
    let fired = false;
    const done = new Promise<void>((resolve) => {
      const timer = unrefClock.setTimeout(() => {
        fired = true;
        resolve();
      }, 1) as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
    });
    // An unref'd timer alone would let the process exit; a ref'd one keeps the test alive meanwhile.
    const keepAlive = setTimeout(() => {}, 1000);
    await done;
    clearTimeout(keepAlive);
    expect(fired).toBe(true);
  });

  it('clearTimeout cancels', () => {
    const timer = unrefClock.setTimeout(() => {
      throw new Error('must not fire');
    }, 1) as NodeJS.Timeout;
    unrefClock.clearTimeout(timer);
    expect(timer.hasRef()).toBe(false);
  });
});
