// A session that stops while it attaches (a CLI run that ends while an eager server still connects)
// leaves no line open to the host: an open one would hold the CLI's process forever and keep the host
// from ever idling out.

import { beforeEach, describe, expect, it } from 'vitest';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { eventually, type HostWorld, sessionsOf, useHostWorld } from './harness.ts';

const worldOf = useHostWorld();
let world: HostWorld;
beforeEach(() => {
  world = worldOf();
});

describe('an attach aborted by the session', () => {
  it('while its line to the host opens: the line closes', async () => {
    const stopped = new AbortController();
    stopped.abort();
    await expect(
      world.session('A').connect(stdioDefinition([], { inheritEnv: false }), undefined, undefined, {
        signal: stopped.signal,
      }),
    ).rejects.toThrow(/abort/);
    await eventually(async () => expect(sessionsOf(await world.status())).toEqual([]));
  });

  it('while the host starts the server: the line closes', async () => {
    const stopped = new AbortController();
    const connecting = world
      .session('A')
      .connect(stdioDefinition(['--slow-start-ms', '3000'], { inheritEnv: false }), undefined, undefined, {
        signal: stopped.signal,
      });
    connecting.catch(() => {});
    await eventually(async () => expect(sessionsOf(await world.status())).toHaveLength(1));
    stopped.abort();
    await expect(connecting).rejects.toThrow(/abort/);
    await eventually(async () => expect(sessionsOf(await world.status())).toEqual([]));
  });
});
