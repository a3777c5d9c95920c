// The start phase's one timer follows the wake the phase asks for: a new wake re-arms it, the same
// wake keeps it, none clears it. XState's SimulatedClock moves it; no real time passes.

import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { WAKE_AFTER_MS, type Wake } from '../../../../src/adapters/pi/start-phase.ts';
import { wakeAlarm } from '../../../../src/adapters/pi/wake-alarm.ts';

function alarmOn() {
  const clock = new SimulatedClock();
  let fired = 0;
  const alarm = wakeAlarm(clock, () => fired++);
  return { clock, alarm, fired: () => fired };
}

describe('the wake alarm', () => {
  it('fires once, the wake reason’s delay after it was armed', () => {
    const { clock, alarm, fired } = alarmOn();
    alarm.follow({ reason: 'no-request' });
    clock.increment(WAKE_AFTER_MS['no-request'] - 1);
    expect(fired()).toBe(0);
    clock.increment(1);
    expect(fired()).toBe(1);
    clock.increment(10 * WAKE_AFTER_MS['no-request']);
    expect(fired()).toBe(1);
  });

  it('keeps the timer for the same wake, re-arms it for a new one', () => {
    const { clock, alarm, fired } = alarmOn();
    const wake: Wake = { reason: 'no-request' };
    alarm.follow(wake);
    clock.increment(WAKE_AFTER_MS['no-request'] - 100);
    alarm.follow(wake);
    clock.increment(100);
    expect(fired()).toBe(1);

    alarm.follow({ reason: 'no-request' });
    clock.increment(WAKE_AFTER_MS['no-request'] - 100);
    alarm.follow({ reason: 'request-sent' });
    clock.increment(100);
    expect(fired()).toBe(1);
    clock.increment(WAKE_AFTER_MS['request-sent'] - 100);
    expect(fired()).toBe(2);
  });

  it('clears the timer when the phase asks for no wake', () => {
    const { clock, alarm, fired } = alarmOn();
    alarm.follow({ reason: 'request-sent' });
    alarm.follow(undefined);
    clock.increment(10 * WAKE_AFTER_MS['no-request']);
    expect(fired()).toBe(0);
  });
});
