// Reaching the shared host, starting it when none answers (src/machines/host-start.machine.ts), on
// XState's SimulatedClock: the host is tried again the moment it says it listens or exits, never on a
// timer; a host that exits and leaves nobody answering fails at once; one that never comes up fails at
// exactly the start deadline from the first try.

import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock, waitFor } from 'xstate';
import {
  HOST_START_DEADLINE_MS,
  type HostStartEvent,
  hostStartMachine,
  type OpenOutcome,
} from '../../src/machines/host-start.machine.ts';

/** Each try to open answers the next outcome (`absent` once they run out); started processes are counted. */
function reaching(outcomes: Array<OpenOutcome<string> | Error>) {
  const clock = new SimulatedClock();
  let tries = 0;
  let starts = 0;
  let tell: ((event: HostStartEvent) => void) | undefined;
  const actor = createActor(
    hostStartMachine.provide({
      actors: {
        open: fromPromise<OpenOutcome<unknown>>(async () => {
          const outcome = outcomes[tries++] ?? { absent: true };
          if (outcome instanceof Error) throw outcome;
          return outcome;
        }),
        hostProcess: fromCallback<HostStartEvent>(({ sendBack }) => {
          starts++;
          tell = sendBack;
          return () => {
            tell = undefined;
          };
        }),
      },
    }),
    { clock },
  ).start();
  const settled = () => waitFor(actor, (s) => s.status === 'done' || s.matches({ reaching: 'starting' }));
  return {
    actor,
    clock,
    settled,
    host: (event: HostStartEvent) => tell?.(event),
    tries: () => tries,
    starts: () => starts,
  };
}

describe('hostStart', () => {
  it('a host that answers: up at the first try, nothing started', async () => {
    const r = reaching([{ line: 'line' }]);
    const s = await r.settled();
    expect(s.value).toBe('up');
    expect(s.context.line).toBe('line');
    expect(r.starts()).toBe(0);
  });

  it('nobody listens: starts the host, and opens again the moment it says it listens', async () => {
    const r = reaching([{ absent: true }, { line: 'line' }]);
    await r.settled();
    expect(r.starts()).toBe(1);
    // No timer tries again meanwhile: the clock can run to just before the deadline.
    r.clock.increment(HOST_START_DEADLINE_MS - 1);
    expect(r.tries()).toBe(1);
    r.host({ type: 'LISTENING' });
    const s = await r.settled();
    expect(s.value).toBe('up');
    expect(r.tries()).toBe(2);
    expect(r.starts()).toBe(1);
  });

  it('the host it started lost a race (exited) and the winner answers: up', async () => {
    const r = reaching([{ absent: true }, { line: 'winner' }]);
    await r.settled();
    r.host({ type: 'EXITED', code: 0 });
    const s = await r.settled();
    expect(s.value).toBe('up');
    expect(s.context.line).toBe('winner');
  });

  it('the host exited and nobody answers: failed at once with its exit code', async () => {
    const r = reaching([{ absent: true }, { absent: true }]);
    await r.settled();
    r.host({ type: 'EXITED', code: 1 });
    const s = await r.settled();
    expect(s.value).toBe('failed');
    expect(s.context.failure).toEqual({ why: 'exited', code: 1 });
    expect(r.tries()).toBe(2);
  });

  it('a host that never says it listens: failed at exactly the deadline from the first try', async () => {
    const r = reaching([{ absent: true }]);
    await r.settled();
    r.clock.increment(HOST_START_DEADLINE_MS - 1);
    expect(r.actor.getSnapshot().matches({ reaching: 'starting' })).toBe(true);
    r.clock.increment(1);
    const s = r.actor.getSnapshot();
    expect(s.value).toBe('failed');
    expect(s.context.failure).toEqual({ why: 'deadline' });
    // Its process is no longer followed.
    r.host({ type: 'LISTENING' });
    expect(r.tries()).toBe(1);
  });

  it('any other failure to open (a silent or foreign host) fails at once and starts nothing', async () => {
    const silent = new Error('did not answer within 4 s');
    const r = reaching([silent]);
    const s = await r.settled();
    expect(s.value).toBe('failed');
    expect(s.context.failure).toEqual({ why: 'error', error: silent });
    expect(r.starts()).toBe(0);
  });
});
