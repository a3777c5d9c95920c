// Model-based tests: a small, pure abstract model of the server lifecycle (one per lifecycle mode)
// generates every simple path (no transition taken twice), and each path drives the real server
// logic with a scripted connector and a SimulatedClock. After every step the real actor must be in
// the model's state and hold its invariants: a live connection only while connected, every other
// connection closed exactly once, no connect attempt left dangling.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMachine, waitFor } from 'xstate';
import { createTestModel } from 'xstate/graph';
import type { Lifecycle } from '../../src/config/types.ts';
import { serverStateOf } from '../../src/machines/server.machine.ts';
import { fullJitterDelayMs } from '../../src/machines/server-timing.ts';
import { type Harness, startServer } from './fakes.ts';

afterEach(() => {
  vi.useRealTimers();
});

const STARTUP_MS = 30_000;
const IDLE_MS = 600_000;

function modelFor(lifecycle: Lifecycle) {
  const reconnects = lifecycle !== 'lazy';
  return createMachine({
    id: `server-model-${lifecycle}`,
    initial: 'init',
    states: {
      init: { on: { CONNECT: 'connecting' } },
      connecting: {
        on: {
          CONNECT_OK: 'connected',
          CONNECT_AUTH: 'needsAuth',
          CONNECT_FAIL: 'backoff',
          STARTUP_TIMEOUT: 'backoff',
          CLOSE: 'closed',
        },
      },
      connected: {
        on: {
          TRANSPORT_LOST: reconnects ? 'backoff' : 'closed',
          CLOSE: 'closed',
          ...(reconnects ? {} : { IDLE_TIMEOUT: 'closed' }),
        },
      },
      needsAuth: { on: { AUTHENTICATED: 'connecting', CLOSE: 'closed' } },
      backoff: {
        on: { BACKOFF_ELAPSED: reconnects ? 'connecting' : 'closed', RETRY: 'connecting', CLOSE: 'closed' },
      },
      closed: { on: { CONNECT: 'connecting' } },
    },
  });
}

async function leaveConnecting(h: Harness) {
  await waitFor(h.actor, (s) => !s.matches('connecting'));
}

/** Leaving `connected` passes through `closing` while the connection's close runs. */
async function settleClose(h: Harness) {
  await waitFor(h.actor, (s) => !s.hasTag('closing'));
}

function drive(h: Harness) {
  return {
    CONNECT: () => h.actor.send({ type: 'CONNECT' }),
    CONNECT_OK: async () => {
      h.current().succeed();
      await leaveConnecting(h);
    },
    CONNECT_AUTH: async () => {
      h.current().fail('auth', 'HTTP 401');
      await leaveConnecting(h);
    },
    CONNECT_FAIL: async () => {
      h.current().fail('network', 'ECONNREFUSED');
      await leaveConnecting(h);
    },
    STARTUP_TIMEOUT: () => h.advance(STARTUP_MS),
    IDLE_TIMEOUT: async () => {
      h.advance(IDLE_MS);
      await settleClose(h);
    },
    TRANSPORT_LOST: async () => {
      h.connections.at(-1)?.emit({ type: 'closed', error: 'EOF' });
      await settleClose(h);
    },
    BACKOFF_ELAPSED: () => h.advance(h.actor.getSnapshot().context.backoffDelayMs ?? Number.NaN),
    RETRY: () => h.actor.send({ type: 'RETRY' }),
    AUTHENTICATED: () => h.actor.send({ type: 'AUTHENTICATED' }),
    CLOSE: async () => {
      h.actor.send({ type: 'CLOSE' });
      await settleClose(h);
    },
  };
}

function invariants(h: Harness, expected: string) {
  const snapshot = h.actor.getSnapshot();
  const { context } = snapshot;
  expect(serverStateOf(snapshot)).toBe(expected);
  expect(context.connection !== undefined).toBe(expected === 'connected');
  expect(h.closedExactlyOnceExceptLive()).toBe(true);
  if (context.connection) expect(h.connections.at(-1)?.listenerCount).toBe(1);
  const pending = h.attempts.filter((a) => !a.settled);
  expect(pending).toHaveLength(expected === 'connecting' ? 1 : 0);
  if (expected === 'backoff') {
    expect(context.attempt).toBeGreaterThan(0);
    expect(context.backoffDelayMs).toBe(fullJitterDelayMs(context.attempt, 1));
  }
  if (expected === 'needsAuth') expect(context.lastError?.kind).toBe('auth');
}

function checks(h: Harness) {
  const states: Record<string, () => void> = {};
  for (const state of ['init', 'connecting', 'connected', 'needsAuth', 'backoff', 'closed']) {
    states[state] = () => invariants(h, state);
  }
  return states;
}

describe.each(['lazy', 'keep-alive'] as const)('%s server, every simple path', (lifecycle) => {
  const paths = createTestModel(modelFor(lifecycle)).getSimplePaths();

  it('the model reaches every state through every one of its transitions', () => {
    const visited = new Set(paths.flatMap((p) => p.steps.map((s) => serverStateOf(s.state))));
    expect([...visited].sort()).toEqual([
      'backoff',
      'closed',
      'connected',
      'connecting',
      'init',
      'needsAuth',
    ]);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const h = startServer({
        lifecycle,
        jitter: 1,
        definition: { startupTimeoutMs: STARTUP_MS, idleTimeoutMs: IDLE_MS },
      });
      try {
        await path.test({ events: drive(h), states: checks(h) });
      } finally {
        h.actor.stop();
      }
      expect(h.connections.every((c) => c.closeCount === 1)).toBe(true);
    });
  }
});
