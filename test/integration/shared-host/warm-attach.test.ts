// A session attaching to a copy the host already runs and that takes calls is answered at once: its
// first message is `attached`, carrying the copy's state (no separate `state` push before it, which the
// session would handle twice on the way to its first call). A copy still starting is pushed its state
// first, so the attaching session sees it connecting. Real host process, the stdio fixture, the wire.

import { afterEach, describe, expect, it } from 'vitest';
import type { HostClient } from '../../../src/adapters/host/host-client.ts';
import { instanceRequest } from '../../../src/adapters/host/shared-connector.ts';
import { attachToHost } from '../../../src/adapters/host/start-host.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { useHostWorld } from './harness.ts';
import { WireSession } from './wire-session.ts';

const worldOf = useHostWorld();

describe('attaching to a shared copy', () => {
  let starter: HostClient | undefined;
  const sessions: WireSession[] = [];
  afterEach(() => {
    for (const session of sessions.splice(0)) session.close();
    starter?.close();
  });

  it('still starting: its state first, then the answer; warm: the answer alone, with its state', async () => {
    const world = worldOf();
    starter = await attachToHost({ agentDir: world.agentDir, build: world.build, label: 'starter' });
    world.remember(starter.hostPid);
    const request = instanceRequest(stdioDefinition(), 'user', world.project, {});

    const first = await WireSession.open(world, 'first');
    sessions.push(first);
    const greeted = first.received.length;
    first.send({ t: 'attach', a: 1, request });
    await first.next('attached', greeted);
    expect(first.received[greeted]?.t).toBe('state');

    const second = await WireSession.open(world, 'second');
    sessions.push(second);
    const ready = second.received.length;
    second.send({ t: 'attach', a: 1, request });
    const attached = await second.next('attached', ready);
    expect(second.received.slice(ready).map((m) => m.t)).toEqual(['attached']);
    expect(attached.state).toMatchObject({ state: 'connected' });
    expect(attached.state.pid).toEqual(expect.any(Number));
  });
});
