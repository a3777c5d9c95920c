// Progress for Pi: a person reads a few updates a second, and every update costs Pi a render (and, in
// JSON and RPC mode, an event). The first update goes at once; then at most one per interval, always
// the latest; `flush` sends the last one before the call's result. Time comes from XState's clock.

import type { Clock } from '../ports/clock.ts';

export const PROGRESS_INTERVAL_MS = 250;

export interface ProgressThrottle<T> {
  update(value: T): void;
  /** Sends what is pending now and stops the timer (the call is over). */
  flush(): void;
}

export function throttleProgress<T>(
  send: (value: T) => void,
  clock: Clock,
  intervalMs = PROGRESS_INTERVAL_MS,
): ProgressThrottle<T> {
  let timer: unknown;
  let waiting = false;
  let pending: { value: T } | undefined;
  const wait = () => {
    waiting = true;
    timer = clock.setTimeout(tick, intervalMs);
  };
  const tick = () => {
    if (!pending) {
      waiting = false;
      return;
    }
    const { value } = pending;
    pending = undefined;
    send(value);
    wait();
  };
  return {
    update(value) {
      if (waiting) {
        pending = { value };
        return;
      }
      send(value);
      wait();
    },
    flush() {
      if (waiting) clock.clearTimeout(timer);
      waiting = false;
      const last = pending;
      pending = undefined;
      if (last) send(last.value);
    },
  };
}
