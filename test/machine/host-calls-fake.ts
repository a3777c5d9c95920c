// A tiny fake of the host's call steps for the host's attachment and instance charts: every call gets
// a connection at once and runs until the test answers it (or its child is stopped, which aborts it).

import { fromPromise } from 'xstate';
import { type HostCallInput, hostCallMachine } from '../../src/machines/host-call.machine.ts';

export interface RunningCall {
  readonly signal: AbortSignal;
  answer(): void;
}

export function fakeCalls() {
  const running = new Map<number, RunningCall>();
  const logic = hostCallMachine.provide({
    actors: {
      awaitConnection: fromPromise<unknown, HostCallInput>(async () => 'connection'),
      runCall: fromPromise<unknown, HostCallInput & { connection: unknown }>(
        ({ input, signal }) =>
          new Promise((resolve) => {
            running.set(input.id, { signal, answer: () => resolve(null) });
          }),
      ),
    },
  });
  return { logic, running };
}
