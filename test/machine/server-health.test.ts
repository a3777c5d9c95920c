// What the status surfaces make of a server's snapshot (src/commands/server-status.ts): decided by its
// tags. A server whose connection is closing is not ready, and the status line says so.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import { healthOf, statusLine } from '../../src/commands/server-status.ts';
import type { SessionContext } from '../../src/machines/session.machine.ts';
import type { ServerActorRef } from '../../src/session/ensure-connected.ts';
import { type FakeConnection, type Harness, SlowClose, startServer } from './fakes.ts';

async function connected(h: Harness, connection: FakeConnection): Promise<void> {
  h.actor.send({ type: 'CONNECT' });
  h.current().succeed(connection);
  await waitFor(h.actor, (s) => s.hasTag('usable'));
}

const context = (names: string[]) =>
  ({ config: { servers: names.map((name) => ({ name })) }, disabled: [] }) as unknown as SessionContext;

afterEach(() => {
  vi.useRealTimers();
});

describe('a closing server', () => {
  it('is not ready until its close has ended; the status line counts it apart', async () => {
    const h = startServer();
    const live = new SlowClose();
    await connected(h, live);
    const ref = h.actor as unknown as ServerActorRef;
    expect(healthOf(ref)).toBe('ready');
    expect(statusLine(context(['demo']), { demo: ref })).toBe('MCP 1/1');

    h.actor.send({ type: 'CLOSE' });
    await waitFor(h.actor, (s) => s.hasTag('closing'));
    expect(healthOf(ref)).toBe('closing');
    expect(statusLine(context(['demo']), { demo: ref })).toBe('MCP 0/1 · 1 closing');

    live.finishClose();
    await h.closeEnded();
    // Closed and idle: a lazy server starts again on its next use.
    expect(healthOf(ref)).toBe('ready');
    expect(statusLine(context(['demo']), { demo: ref })).toBe('MCP 1/1');
  });
});
