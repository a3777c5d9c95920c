// A tiny fake of the host's call steps for the host's attachment and instance charts: every call gets
// a connection at once and runs until the test answers it (or its child is stopped, which aborts it).

import { fromPromise } from 'xstate';
import { hostCallMachine } from '../../src/machines/host-call.machine.ts';

export interface RunningCall {
  readonly signal: AbortSignal;
  answer(): void;
}

export function fakeCalls() {
  const running = new Map<number, RunningCall>();
  const logic = hostCallMachine.provide({
    actors: {
      awaitConnection: fromPromise(async () => 'connection'),
      runCall: fromPromise<unknown, { id: number }>(
        ({ input, signal }) =>
          new Promise((resolve) => {
            running.set(input.id, { signal, answer: () => resolve(null) });
          }),
      ),
    },
  });
  return { logic, running };
}
