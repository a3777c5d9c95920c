// The only timer of Pi's start: armed when the start phase asks for a new wake (./start-phase.ts),
// cleared when it asks for none. It runs on the runtime's XState clock (unref'd, so it never keeps Pi
// alive; a test's SimulatedClock drives both), not as an XState `after`, because XState must stay off
// the way to the first model request.

import type { Clock } from '../../ports/clock.ts';
import { WAKE_AFTER_MS, type Wake } from './start-phase.ts';

export interface WakeAlarm {
  /** Arms, keeps or clears the timer so that it matches the phase's wake. */
  follow(wake: Wake | undefined): void;
}

export function wakeAlarm(clock: Clock, fire: () => void): WakeAlarm {
  let armed: { wake: Wake; id: unknown } | undefined;
  return {
    follow(wake) {
      if (armed?.wake === wake) return;
      if (armed) clock.clearTimeout(armed.id);
      armed = wake && { wake, id: clock.setTimeout(fire, WAKE_AFTER_MS[wake.reason]) };
    },
  };
}
