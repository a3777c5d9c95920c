// A connection whose far end is the shared host's copy of the server: when it ends it, it says where
// that copy went (`FarEnd`), and the server actor mirrors it: backoff until the copy's next try (not by
// its own schedule), connecting again at once after a restart. A failed connect that
// carries the far end's next try (`ConnectError.retryAt`) is waited for the same way.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import { serverStateOf } from '../../src/machines/server.machine.ts';
import { ConnectError } from '../../src/ports/mcp.ts';
import type { FarEnd } from '../../src/ports/server-state.ts';
import { type FakeConnection, type Harness, startServer } from './fakes.ts';

afterEach(() => {
  vi.useRealTimers();
});

const stateOf = (h: Harness) => serverStateOf(h.actor.getSnapshot());

async function connect(h: Harness): Promise<FakeConnection> {
  h.actor.send({ type: 'CONNECT' });
  const live = h.current().succeed();
  await waitFor(h.actor, (s) => s.matches('connected'));
  return live;
}

const hostError = {
  kind: 'exited' as const,
  detail: { cause: 'connectionLost' as const, reason: 'the server exited (code 1)' },
};

describe('the far end ended the connection and went to backoff', () => {
  it.each(['keep-alive', 'eager', 'lazy'] as const)(
    '%s: backoff until the far end’s next try, with its error; then the next try as the lifecycle says',
    async (lifecycle) => {
      const h = startServer({ lifecycle });
      const live = await connect(h);
      const retryAt = Date.now() + 7_000;
      live.emit({
        type: 'closed',
        error: 'ignored',
        farEnd: { state: 'backoff', retryAt, lastError: hostError },
      });
      await h.closeEnded();
      expect(stateOf(h)).toBe('backoff');
      expect(live.closeCount).toBe(1);
      // Not its own schedule (jitter 1: 1 s on the first attempt): the far end's.
      expect(h.actor.getSnapshot().context).toMatchObject({
        attempt: 1,
        backoffDelayMs: 7_000,
        nextRetryAt: retryAt,
        lastError: hostError,
      });
      h.advance(6_999);
      expect(stateOf(h)).toBe('backoff');
      h.advance(1);
      expect(stateOf(h)).toBe(lifecycle === 'lazy' ? 'closed' : 'connecting');
    },
  );

  it('a call meanwhile fails fast (tag failsFast); RETRY tries at once', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    const live = await connect(h);
    live.emit({ type: 'closed', farEnd: { state: 'backoff', retryAt: Date.now() + 60_000 } });
    await h.closeEnded();
    expect(h.actor.getSnapshot().hasTag('failsFast')).toBe(true);
    h.actor.send({ type: 'RETRY' });
    expect(stateOf(h)).toBe('connecting');
    expect(h.attempts).toHaveLength(2);
  });

  it('a next try already past is taken at once', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    const live = await connect(h);
    live.emit({ type: 'closed', farEnd: { state: 'backoff', retryAt: Date.now() - 5 } });
    await h.closeEnded();
    expect(h.actor.getSnapshot().context.backoffDelayMs).toBe(0);
    h.advance(0);
    expect(stateOf(h)).toBe('connecting');
  });

  it('a later failure without a far-end time is back on the actor’s own schedule', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    const live = await connect(h);
    live.emit({ type: 'closed', farEnd: { state: 'backoff', retryAt: Date.now() + 30_000 } });
    await h.closeEnded();
    h.advance(30_000);
    h.current().fail('spawn', 'no such command');
    await waitFor(h.actor, (s) => s.matches('backoff'));
    // Attempt 2, jitter 1: the ceiling, 2 s.
    expect(h.actor.getSnapshot().context).toMatchObject({ attempt: 2, backoffDelayMs: 2_000 });
  });
});

describe('the far end ended the connection and starts again', () => {
  it('connecting (a restart): the actor reconnects at once, no backoff', async () => {
    const h = startServer({ lifecycle: 'lazy' });
    const live = await connect(h);
    const farEnd: FarEnd = { state: 'connecting' };
    live.emit({ type: 'closed', farEnd });
    await waitFor(h.actor, (s) => s.matches('connecting'));
    expect(h.attempts).toHaveLength(2);
    expect(h.actor.getSnapshot().context.trail.map((v) => v.state)).toEqual([
      'init',
      'connecting',
      'connected',
      'connecting',
    ]);
    h.current().succeed();
    await waitFor(h.actor, (s) => s.matches('connected'));
    expect(live.closeCount).toBe(1);
  });
});

describe('a failed connect that carries the far end’s next try', () => {
  it.each(['keep-alive', 'lazy'] as const)(
    '%s: backoff until that time instead of its own schedule',
    async (lifecycle) => {
      const h = startServer({ lifecycle });
      h.actor.send({ type: 'CONNECT' });
      const retryAt = Date.now() + 45_000;
      h.current().failWith(new ConnectError('spawn', 'no such command', { retryAt }));
      await waitFor(h.actor, (s) => s.matches('backoff'));
      expect(h.actor.getSnapshot().context).toMatchObject({
        attempt: 1,
        backoffDelayMs: 45_000,
        nextRetryAt: retryAt,
        lastError: { kind: 'spawn', detail: { cause: 'connect', message: 'no such command' } },
      });
      h.advance(44_999);
      expect(stateOf(h)).toBe('backoff');
      h.advance(1);
      expect(stateOf(h)).toBe(lifecycle === 'lazy' ? 'closed' : 'connecting');
    },
  );

  it('without one, its own schedule', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    h.actor.send({ type: 'CONNECT' });
    h.current().fail('spawn');
    await waitFor(h.actor, (s) => s.matches('backoff'));
    expect(h.actor.getSnapshot().context.backoffDelayMs).toBe(1_000);
  });
});
