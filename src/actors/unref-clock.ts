// XState's clock for production: the same timers, unref()'d, so a pending backoff, idle or startup
// timer never keeps Pi (or the CLI) alive after it is done. Tests use SimulatedClock instead.

import type { Clock } from '../ports/clock.ts';

export const unrefClock: Clock = {
  setTimeout(fn: (...args: any[]) => void, ms: number) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return timer;
  },
  clearTimeout(id: any) {
    clearTimeout(id);
  },
};
