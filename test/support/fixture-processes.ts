// A runtime's stop ends its stdio servers through their process groups, which can outlive the stop's
// promise by a few ms: a test's clean-up polls the real process table until none of its fixtures is left.

import { expect, vi } from 'vitest';
import { fixtureServerProcesses } from '../fixtures/servers/spawn.ts';

export function untilNoFixtureServers(): Promise<void> {
  return vi.waitFor(() => expect(fixtureServerProcesses()).toEqual([]), { timeout: 10_000, interval: 50 });
}
