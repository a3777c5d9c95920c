// Health checks of the server machine (connected.health): eager and keep-alive servers are pinged on
// the named `healthCheck` delay; a ping that fails or goes unanswered for `healthTimeout` is a lost
// transport (backoff, then a reconnect by itself). Real server logic, SimulatedClock, fake connection.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import { serverStateOf } from '../../src/machines/server.machine.ts';
import { HEALTH_TIMEOUT_MS } from '../../src/machines/server-timing.ts';
import { FakeConnection, type Harness, startServer } from './fakes.ts';

afterEach(() => {
  vi.useRealTimers();
});

const stateOf = (h: Harness) => serverStateOf(h.actor.getSnapshot());
const healthOf = (h: Harness) =>
  (h.actor.getSnapshot().value as { connected?: { health?: string } }).connected?.health;

async function connect(h: Harness, connection = new FakeConnection()): Promise<FakeConnection> {
  h.actor.send({ type: 'CONNECT' });
  const live = h.current().succeed(connection);
  await waitFor(h.actor, (s) => s.matches('connected'));
  return live;
}

/** Lets the ping actor's promise settle (it is real, only time is simulated). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('health checks', () => {
  it.each(['eager', 'keep-alive'] as const)(
    '%s: a ping every 30 s by default while connected',
    async (lifecycle) => {
      const h = startServer({ lifecycle });
      const live = await connect(h);
      h.advance(29_999);
      expect(live.pings).toBe(0);
      h.advance(1);
      expect(live.pings).toBe(1);
      expect(healthOf(h)).toBe('pinging');
      await settle();
      expect(healthOf(h)).toBe('waiting');
      h.advance(30_000);
      await settle();
      h.advance(30_000);
      await settle();
      expect(live.pings).toBe(3);
      expect(stateOf(h)).toBe('connected');
    },
  );

  it('the interval comes from healthCheckMs', async () => {
    const h = startServer({ lifecycle: 'keep-alive', definition: { healthCheckMs: 5_000 } });
    const live = await connect(h);
    h.advance(5_000);
    expect(live.pings).toBe(1);
  });

  it.each([
    ['lazy', 30_000],
    ['keep-alive', 0],
  ] as const)('%s with healthCheckMs %i is never pinged', async (lifecycle, healthCheckMs) => {
    const h = startServer({ lifecycle, definition: { healthCheckMs, idleTimeoutMs: 0 } });
    const live = await connect(h);
    h.advance(60 * 60_000);
    expect(live.pings).toBe(0);
    expect(stateOf(h)).toBe('connected');
  });

  it('a failed ping is a lost transport: backoff with the reason, the connection closed, then a reconnect', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    const live = await connect(h);
    live.pingAnswer = 'fail';
    h.advance(30_000);
    await waitFor(h.actor, (s) => s.matches('backoff'));
    expect(live.closeCount).toBe(1);
    expect(h.actor.getSnapshot().context.lastError).toMatchObject({
      kind: 'network',
      detail: { cause: 'healthCheckFailed', message: 'ping failed: EPIPE' },
    });
    h.advance(1_000);
    expect(stateOf(h)).toBe('connecting');
    await connect(h);
    expect(h.attempts).toHaveLength(2);
  });

  it('a ping unanswered for 10 s (a hung server that keeps its connection) is a lost transport', async () => {
    const h = startServer({ lifecycle: 'eager' });
    const live = await connect(h);
    live.pingAnswer = 'hang';
    h.advance(30_000);
    h.advance(HEALTH_TIMEOUT_MS - 1);
    expect(stateOf(h)).toBe('connected');
    h.advance(1);
    expect(stateOf(h)).toBe('closing');
    await h.closeEnded();
    expect(stateOf(h)).toBe('backoff');
    expect(live.pingsAborted).toBe(1);
    expect(live.closeCount).toBe(1);
    expect(h.actor.getSnapshot().context.lastError).toMatchObject({
      kind: 'timeout',
      detail: { cause: 'healthCheckTimeout', ms: 10_000 },
    });
  });

  it('the ping timeout is the interval when that is shorter', async () => {
    const h = startServer({ lifecycle: 'eager', definition: { healthCheckMs: 2_000 } });
    const live = await connect(h);
    live.pingAnswer = 'hang';
    h.advance(2_000);
    h.advance(1_999);
    expect(stateOf(h)).toBe('connected');
    h.advance(1);
    await h.closeEnded();
    expect(stateOf(h)).toBe('backoff');
  });

  it('no ping while calls run: their own timeouts watch the server; pings resume after', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    const live = await connect(h);
    h.actor.send({ type: 'CALL_STARTED' });
    h.advance(5 * 30_000);
    expect(live.pings).toBe(0);
    h.actor.send({ type: 'CALL_FINISHED' });
    h.advance(30_000);
    expect(live.pings).toBe(1);
  });

  it('leaving connected aborts a running ping', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    const live = await connect(h);
    live.pingAnswer = 'hang';
    h.advance(30_000);
    h.actor.send({ type: 'CLOSE' });
    expect(live.pingsAborted).toBe(1);
    await h.closeEnded();
    expect(stateOf(h)).toBe('closed');
    h.advance(60_000);
    expect(live.pings).toBe(1);
  });
});
