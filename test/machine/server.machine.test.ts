// Every row of DESIGN.md's server state table, the backoff sequence, idle shutdown and the catalog
// refresh, on the real server logic with a scripted connector and a SimulatedClock.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromTransition, waitFor } from 'xstate';
import { serverLogic } from '../../src/actors/server-actor.ts';
import { serverStateOf, TRAIL_LENGTH } from '../../src/machines/server.machine.ts';
import {
  BACKOFF_CAP_MS,
  backoffCeilingMs,
  fullJitterDelayMs,
  LIST_CHANGED_MAX_WAIT_MS,
  LIST_CHANGED_QUIET_MS,
} from '../../src/machines/server-timing.ts';
import type { Connector } from '../../src/machines/server-types.ts';
import type { Connection, ConnectionEvent } from '../../src/ports/connection.ts';
import { ConnectError } from '../../src/ports/mcp.ts';
import type { ServerEmitted, ServerToParentEvent } from '../../src/ports/server-state.ts';
import { definition, FakeConnection, type Harness, SlowClose, startServer, tool } from './fakes.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const stateOf = (h: Harness) => serverStateOf(h.actor.getSnapshot());

/** Lets promise actors settle (they are real, only time is simulated). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

async function connect(h: Harness, connection?: FakeConnection): Promise<FakeConnection> {
  h.actor.send({ type: 'CONNECT' });
  const live = h.current().succeed(connection);
  await waitFor(h.actor, (s) => s.matches('connected'));
  return live;
}

async function failConnect(h: Harness, kind: ConstructorParameters<typeof ConnectError>[0] = 'network') {
  h.current().fail(kind, `${kind} went wrong`);
  await waitFor(h.actor, (s) => !s.matches('connecting'));
}

describe('init', () => {
  it('starts in init without connecting', () => {
    const h = startServer();
    expect(stateOf(h)).toBe('init');
    expect(h.attempts).toHaveLength(0);
  });

  it('CONNECT → connecting, handing the definition and an abort signal to the connector', () => {
    const h = startServer();
    h.actor.send({ type: 'CONNECT' });
    expect(stateOf(h)).toBe('connecting');
    expect(h.attempts).toHaveLength(1);
    expect(h.current().definition.name).toBe('demo');
    expect(h.current().options.signal.aborted).toBe(false);
  });

  it('RETRY → connecting; CLOSE → closed', () => {
    const a = startServer();
    a.actor.send({ type: 'RETRY' });
    expect(stateOf(a)).toBe('connecting');
    const b = startServer();
    b.actor.send({ type: 'CLOSE' });
    expect(stateOf(b)).toBe('closed');
    expect(b.attempts).toHaveLength(0);
  });
});

describe('connecting', () => {
  it('opening until the server answered initialize, then listing (tag `listing`) until connected', async () => {
    const h = startServer();
    h.actor.send({ type: 'CONNECT' });
    expect(h.actor.getSnapshot().matches({ connecting: 'opening' })).toBe(true);
    expect(h.actor.getSnapshot().hasTag('listing')).toBe(false);
    h.current().options.onListing?.();
    expect(h.actor.getSnapshot().matches({ connecting: 'listing' })).toBe(true);
    expect(h.actor.getSnapshot().hasTag('listing')).toBe(true);
    expect(h.actor.getSnapshot().hasTag('starting')).toBe(true);
    h.current().succeed();
    await waitFor(h.actor, (s) => s.matches('connected'));
    expect(h.actor.getSnapshot().hasTag('listing')).toBe(false);
  });

  it('a listing reported after the attempt was given up changes nothing', () => {
    const h = startServer();
    h.actor.send({ type: 'CONNECT' });
    const attempt = h.current();
    h.actor.send({ type: 'CLOSE' });
    attempt.options.onListing?.();
    expect(stateOf(h)).toBe('closed');
    expect(h.actor.getSnapshot().hasTag('listing')).toBe(false);
  });

  it('done → connected with the connection and catalog; attempt and last error reset', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    h.actor.send({ type: 'CONNECT' });
    await failConnect(h);
    h.actor.send({ type: 'RETRY' });
    const live = h.current().succeed(new FakeConnection([tool('a'), tool('b')]));
    await waitFor(h.actor, (s) => s.matches('connected'));
    const { context } = h.actor.getSnapshot();
    expect(context.connection).toBe(live);
    expect(context.catalog?.tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(context.attempt).toBe(0);
    expect(context.lastError).toBeUndefined();
    expect(live.listenerCount).toBe(1);
  });

  it('auth error → needsAuth, recorded, not counted as an attempt', async () => {
    const h = startServer();
    h.actor.send({ type: 'CONNECT' });
    await failConnect(h, 'auth');
    expect(stateOf(h)).toBe('needsAuth');
    const { context } = h.actor.getSnapshot();
    expect(context.lastError).toEqual({
      kind: 'auth',
      detail: { cause: 'connect', message: 'auth went wrong' },
      at: Date.now(),
    });
    expect(context.attempt).toBe(0);
  });

  it('other error → backoff with attempt 1, the error and the stderr tail', async () => {
    const h = startServer();
    h.actor.send({ type: 'CONNECT' });
    h.current().fail('exited', 'process exited with code 1', 'Error: missing API_KEY');
    await waitFor(h.actor, (s) => s.matches('backoff'));
    const { context } = h.actor.getSnapshot();
    expect(context.attempt).toBe(1);
    expect(context.lastError).toMatchObject({
      kind: 'exited',
      detail: { cause: 'connect', message: 'process exited with code 1' },
    });
    expect(context.stderrTail).toBe('Error: missing API_KEY');
  });

  it('a rejection that is not a ConnectError still lands in backoff', async () => {
    const connector: Connector = async () => {
      throw new TypeError('boom');
    };
    const actor = createActor(serverLogic, {
      input: { definition: definition(), generation: 1, connector },
    }).start();
    actor.send({ type: 'CONNECT' });
    await waitFor(actor, (s) => s.matches('backoff'));
    expect(actor.getSnapshot().context.lastError).toMatchObject({
      kind: 'protocol',
      detail: { cause: 'connect', message: 'boom' },
    });
    actor.stop();
  });

  it('after startupTimeout → backoff, and the attempt is aborted', () => {
    const h = startServer({ definition: { startupTimeoutMs: 5_000 } });
    h.actor.send({ type: 'CONNECT' });
    h.advance(4_999);
    expect(stateOf(h)).toBe('connecting');
    h.advance(1);
    expect(stateOf(h)).toBe('backoff');
    expect(h.current().options.signal.aborted).toBe(true);
    expect(h.actor.getSnapshot().context.lastError).toMatchObject({
      kind: 'timeout',
      detail: { cause: 'startupTimeout', ms: 5_000 },
    });
  });

  it('CLOSE → closed, and the attempt is aborted', () => {
    const h = startServer();
    h.actor.send({ type: 'CONNECT' });
    h.actor.send({ type: 'CLOSE' });
    expect(stateOf(h)).toBe('closed');
    expect(h.current().options.signal.aborted).toBe(true);
  });

  it('CONNECT while connecting joins the running attempt', () => {
    const h = startServer();
    h.actor.send({ type: 'CONNECT' });
    h.actor.send({ type: 'CONNECT' });
    expect(h.attempts).toHaveLength(1);
  });

  it('a connection that arrives after the attempt was aborted is closed, not leaked', async () => {
    const late = new FakeConnection();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A connector that ignores the abort signal and answers late.
    const connector: Connector = async () => {
      await gate;
      return late;
    };
    const actor = createActor(serverLogic, {
      input: { definition: definition(), generation: 1, connector },
    }).start();
    actor.send({ type: 'CONNECT' });
    actor.send({ type: 'CLOSE' });
    release();
    await vi.waitFor(() => expect(late.closeCount).toBe(1));
    expect(serverStateOf(actor.getSnapshot())).toBe('closed');
    actor.stop();
  });

  it('stderr while connecting goes to the tail and to listeners', () => {
    const h = startServer();
    const lines: string[] = [];
    h.actor.on('stderr', (e) => lines.push(e.line));
    h.actor.send({ type: 'CONNECT' });
    h.current().options.onStderr?.('starting up');
    expect(h.actor.getSnapshot().context.stderrTail).toBe('starting up');
    expect(lines).toEqual(['starting up']);
  });
});

describe('connected', () => {
  it('idle past idleTimeout with nothing in flight → closed, closing the connection once', async () => {
    const h = startServer({ definition: { idleTimeoutMs: 60_000 } });
    const live = await connect(h);
    h.advance(59_999);
    expect(stateOf(h)).toBe('connected');
    h.advance(1);
    expect(stateOf(h)).toBe('closing');
    await h.closeEnded();
    expect(stateOf(h)).toBe('closed');
    expect(live.closeCount).toBe(1);
    expect(live.listenerCount).toBe(0);
    expect(h.actor.getSnapshot().context.connection).toBeUndefined();
  });

  it('idle shutdown waits for in-flight calls and re-arms when the last one finishes', async () => {
    const h = startServer({ definition: { idleTimeoutMs: 60_000 } });
    await connect(h);
    h.actor.send({ type: 'CALL_STARTED' });
    h.actor.send({ type: 'CALL_STARTED' });
    h.advance(10 * 60_000);
    expect(stateOf(h)).toBe('connected');
    h.actor.send({ type: 'CALL_FINISHED' });
    h.advance(10 * 60_000);
    expect(stateOf(h)).toBe('connected');
    expect(h.actor.getSnapshot().context.inFlight).toBe(1);
    h.actor.send({ type: 'CALL_FINISHED' });
    expect(h.actor.getSnapshot().context.inFlight).toBe(0);
    h.advance(59_999);
    expect(stateOf(h)).toBe('connected');
    h.advance(1);
    await h.closeEnded();
    expect(stateOf(h)).toBe('closed');
  });

  it('every finished call restarts the idle timer', async () => {
    const h = startServer({ definition: { idleTimeoutMs: 60_000 } });
    await connect(h);
    h.advance(50_000);
    h.actor.send({ type: 'CALL_STARTED' });
    h.actor.send({ type: 'CALL_FINISHED' });
    h.advance(59_999);
    expect(stateOf(h)).toBe('connected');
    h.advance(1);
    await h.closeEnded();
    expect(stateOf(h)).toBe('closed');
  });

  it.each([
    ['eager', 600_000],
    ['keep-alive', 600_000],
    ['lazy', 0],
  ] as const)('%s with idleTimeoutMs %i never closes when idle', async (lifecycle, idleTimeoutMs) => {
    const h = startServer({ lifecycle, definition: { idleTimeoutMs } });
    await connect(h);
    h.advance(24 * 60 * 60_000);
    expect(stateOf(h)).toBe('connected');
  });

  it.each([
    ['eager', 'open'],
    ['keep-alive', 'open'],
    ['lazy', 'idle'],
  ] as const)(
    'a %s server waits between calls in usage %s (a timer only where it can idle out)',
    async (lifecycle, usage) => {
      const h = startServer({ lifecycle, definition: { idleTimeoutMs: 60_000 } });
      await connect(h);
      for (let call = 0; call < 3; call++) {
        h.actor.send({ type: 'CALL_STARTED' });
        h.actor.send({ type: 'CALL_STARTED' });
        h.actor.send({ type: 'CALL_FINISHED' });
        expect(h.actor.getSnapshot().matches({ connected: { usage: 'active' } })).toBe(true);
        h.actor.send({ type: 'CALL_FINISHED' });
        expect(h.actor.getSnapshot().matches({ connected: { usage } })).toBe(true);
      }
      // A call that began before a reconnect may finish after it: the count stays sane, the state too.
      h.actor.send({ type: 'CALL_FINISHED' });
      expect(h.actor.getSnapshot().matches({ connected: { usage } })).toBe(true);
      expect(h.actor.getSnapshot().context.inFlight).toBe(0);
      h.advance(60_000);
      await h.closeEnded();
      expect(stateOf(h)).toBe(lifecycle === 'lazy' ? 'closed' : 'connected');
    },
  );

  it('transport lost, lazy → closed with the error; the next CONNECT reconnects', async () => {
    const h = startServer();
    const first = await connect(h);
    first.emit({ type: 'closed', error: 'EPIPE' });
    await h.closeEnded();
    expect(stateOf(h)).toBe('closed');
    expect(first.closeCount).toBe(1);
    expect(h.actor.getSnapshot().context.lastError).toMatchObject({
      kind: 'exited',
      detail: { cause: 'connectionLost', reason: 'EPIPE' },
    });
    await connect(h);
    expect(h.attempts).toHaveLength(2);
    expect(h.closedExactlyOnceExceptLive()).toBe(true);
  });

  it.each(['keep-alive', 'eager'] as const)(
    'transport lost, %s → backoff, then reconnects by itself',
    async (lifecycle) => {
      const h = startServer({ lifecycle, definition: { transport: 'http', url: 'http://127.0.0.1:1/mcp' } });
      const first = await connect(h);
      first.emit({ type: 'closed' });
      await h.closeEnded();
      expect(stateOf(h)).toBe('backoff');
      expect(h.actor.getSnapshot().context).toMatchObject({
        attempt: 1,
        backoffDelayMs: 1_000,
        lastError: { kind: 'network', detail: { cause: 'connectionLost' } },
      });
      h.advance(1_000);
      expect(stateOf(h)).toBe('connecting');
      h.current().succeed();
      await waitFor(h.actor, (s) => s.matches('connected'));
      expect(h.attempts).toHaveLength(2);
      expect(h.closedExactlyOnceExceptLive()).toBe(true);
    },
  );

  it('a close the adapter buffered before the watcher subscribed still leaves connected', async () => {
    class ClosedEarly extends FakeConnection {
      override onEvent(listener: (event: ConnectionEvent) => void): () => void {
        const unsubscribe = super.onEvent(listener);
        listener({ type: 'closed', error: 'exited with code 1' });
        return unsubscribe;
      }
    }
    const h = startServer();
    h.actor.send({ type: 'CONNECT' });
    const early = h.current().succeed(new ClosedEarly());
    await waitFor(h.actor, (s) => s.matches('closed'));
    expect(early.closeCount).toBe(1);
    expect(h.actor.getSnapshot().context.lastError?.detail).toEqual({
      cause: 'connectionLost',
      reason: 'exited with code 1',
    });
  });

  it('CLOSE → closed, closing the connection once', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    const live = await connect(h);
    h.actor.send({ type: 'CLOSE' });
    expect(stateOf(h)).toBe('closing');
    expect(h.actor.getSnapshot().hasTag('closing')).toBe(true);
    await h.closeEnded();
    expect(stateOf(h)).toBe('closed');
    expect(live.closeCount).toBe(1);
  });

  it('stays closing (the connection in context) until the close has ended; CLOSE meanwhile changes nothing', async () => {
    const h = startServer();
    const live = new SlowClose();
    await connect(h, live);
    h.actor.send({ type: 'CLOSE' });
    h.actor.send({ type: 'CLOSE' });
    await settle();
    expect(stateOf(h)).toBe('closing');
    expect(h.actor.getSnapshot().context.connection).toBe(live);
    expect(live.closeCount).toBe(1);
    live.finishClose();
    await h.closeEnded();
    expect(stateOf(h)).toBe('closed');
    expect(h.actor.getSnapshot().context.connection).toBeUndefined();
  });

  it('CONNECT or RETRY while closing connects again once the close has ended', async () => {
    for (const type of ['CONNECT', 'RETRY'] as const) {
      const h = startServer();
      const live = new SlowClose();
      await connect(h, live);
      h.actor.send({ type: 'CLOSE' });
      h.actor.send({ type });
      expect(stateOf(h)).toBe('closing');
      expect(h.attempts).toHaveLength(1);
      live.finishClose();
      await waitFor(h.actor, (s) => s.hasTag('starting'));
      expect(h.attempts).toHaveLength(2);
    }
  });

  it('a keep-alive server that lost its transport closes, then waits in backoff; CLOSE meanwhile closes it for good', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    const live = new SlowClose();
    await connect(h, live);
    live.emit({ type: 'closed', error: 'EOF' });
    // CONNECT does not jump a backoff: callers fail fast there once the close has ended.
    h.actor.send({ type: 'CONNECT' });
    expect(stateOf(h)).toBe('closing');
    live.finishClose();
    await h.closeEnded();
    expect(stateOf(h)).toBe('backoff');

    const again = await (async () => {
      h.actor.send({ type: 'RETRY' });
      const next = h.current().succeed(new SlowClose());
      await waitFor(h.actor, (s) => s.matches('connected'));
      return next as SlowClose;
    })();
    again.emit({ type: 'closed', error: 'EOF' });
    h.actor.send({ type: 'CLOSE' });
    again.finishClose();
    await h.closeEnded();
    expect(stateOf(h)).toBe('closed');
  });

  it('a close that fails still ends in closed', async () => {
    class FailingClose extends FakeConnection {
      override close(): Promise<void> {
        void super.close();
        return Promise.reject(new Error('kill failed'));
      }
    }
    const h = startServer();
    await connect(h, new FailingClose());
    h.actor.send({ type: 'CLOSE' });
    await h.closeEnded();
    expect(stateOf(h)).toBe('closed');
  });

  it('stopping the actor while closing still closes the connection once', async () => {
    const h = startServer();
    const live = new SlowClose();
    await connect(h, live);
    h.actor.send({ type: 'CLOSE' });
    h.actor.stop();
    expect(live.closeCount).toBe(1);
    expect(live.listenerCount).toBe(0);
  });

  it('stopping the actor closes the live connection', async () => {
    const h = startServer();
    const live = await connect(h);
    h.actor.stop();
    expect(live.closeCount).toBe(1);
    expect(live.listenerCount).toBe(0);
  });

  it('tools/list_changed refreshes the tool list and reports the new catalog', async () => {
    const h = startServer();
    const catalogs: string[][] = [];
    h.actor.on('catalog', (e) => catalogs.push(e.catalog.tools.map((t) => t.name)));
    const live = await connect(h);
    live.tools = [tool('echo'), tool('added')];
    live.emit({ type: 'tools-changed' });
    h.advance(LIST_CHANGED_QUIET_MS);
    await waitFor(h.actor, (s) => s.context.catalog?.tools.length === 2);
    await waitFor(h.actor, (s) => s.matches({ connected: { tools: 'current' } }));
    expect(catalogs).toEqual([['echo'], ['echo', 'added']]);
  });

  it('resources/list_changed refreshes the resource list', async () => {
    const h = startServer();
    const live = await connect(h);
    live.resources = [{ uri: 'file:///a', name: 'a' }];
    live.emit({ type: 'resources-changed' });
    h.advance(LIST_CHANGED_QUIET_MS);
    await waitFor(h.actor, (s) => s.context.catalog?.resources.length === 1);
    expect(h.actor.getSnapshot().context.catalog?.tools.map((t) => t.name)).toEqual(['echo']);
  });

  it('resources/list_changed refreshes the resource templates with the resources; templates that fail to list stay as they were', async () => {
    const h = startServer();
    const live = await connect(h);
    live.resourceTemplates = [{ uriTemplate: 'file:///{name}', name: 'file' }];
    live.emit({ type: 'resources-changed' });
    h.advance(LIST_CHANGED_QUIET_MS);
    await waitFor(h.actor, (s) => s.context.catalog?.resourceTemplates?.length === 1);

    live.resources = [{ uri: 'file:///a', name: 'a' }];
    live.listResourceTemplates = async () => {
      throw new Error('templates are broken today');
    };
    live.emit({ type: 'resources-changed' });
    h.advance(LIST_CHANGED_QUIET_MS);
    await waitFor(h.actor, (s) => s.context.catalog?.resources.length === 1);
    expect(h.actor.getSnapshot().context.catalog?.resourceTemplates).toEqual([
      { uriTemplate: 'file:///{name}', name: 'file' },
    ]);
    expect(h.actor.getSnapshot().context.lastError).toBeUndefined();
  });

  it('prompts/list_changed refreshes the prompt list and reports the new catalog', async () => {
    const h = startServer();
    const reported: string[][] = [];
    h.actor.on('catalog', (e) => reported.push((e.catalog.prompts ?? []).map((p) => p.name)));
    const live = await connect(h);
    live.prompts = [{ name: 'review', arguments: [{ name: 'file', required: true }] }];
    live.emit({ type: 'prompts-changed' });
    h.advance(LIST_CHANGED_QUIET_MS);
    await waitFor(h.actor, (s) => s.context.catalog?.prompts?.length === 1);
    expect(reported.at(-1)).toEqual(['review']);
    expect(h.actor.getSnapshot().context.catalog?.tools.map((t) => t.name)).toEqual(['echo']);
  });

  it('a burst of tools/list_changed is one listing once it pauses, and the last list wins', async () => {
    const h = startServer();
    const catalogs: string[][] = [];
    h.actor.on('catalog', (e) => catalogs.push(e.catalog.tools.map((t) => t.name)));
    const live = await connect(h);
    let listings = 0;
    live.listTools = async () => {
      listings++;
      return live.tools;
    };
    for (let n = 1; n <= 200; n++) {
      live.tools = [tool('echo'), tool(`v${n}`)];
      live.emit({ type: 'tools-changed' });
      h.advance(1);
    }
    expect(listings).toBe(0);
    h.advance(LIST_CHANGED_QUIET_MS);
    await waitFor(h.actor, (s) => s.matches({ connected: { tools: 'current' } }));
    expect(listings).toBe(1);
    expect(catalogs).toEqual([['echo'], ['echo', 'v200']]);
  });

  it('a storm that never pauses is still read every LIST_CHANGED_MAX_WAIT_MS', async () => {
    const h = startServer();
    const live = await connect(h);
    let listings = 0;
    live.listTools = async () => {
      listings++;
      return live.tools;
    };
    for (let elapsed = 0; elapsed < LIST_CHANGED_MAX_WAIT_MS; elapsed += LIST_CHANGED_QUIET_MS / 2) {
      live.emit({ type: 'tools-changed' });
      h.advance(LIST_CHANGED_QUIET_MS / 2);
    }
    await waitFor(h.actor, (s) => s.matches({ connected: { tools: 'current' } }));
    expect(listings).toBe(1);
  });

  it('a change while the list is being read drops that answer and reads it again after the pause', async () => {
    const h = startServer();
    const catalogs: string[][] = [];
    h.actor.on('catalog', (e) => catalogs.push(e.catalog.tools.map((t) => t.name)));
    const live = await connect(h);
    let release: (() => void) | undefined;
    let listings = 0;
    live.listTools = async () => {
      listings++;
      const answer = [...live.tools];
      if (listings === 1) await new Promise<void>((resolve) => (release = resolve));
      return answer;
    };
    live.tools = [tool('echo'), tool('first')];
    live.emit({ type: 'tools-changed' });
    h.advance(LIST_CHANGED_QUIET_MS);
    await waitFor(h.actor, (s) => s.matches({ connected: { tools: 'refreshing' } }));
    live.tools = [tool('echo'), tool('second')];
    live.emit({ type: 'tools-changed' });
    release?.();
    await waitFor(h.actor, (s) => s.matches({ connected: { tools: 'pending' } }));
    h.advance(LIST_CHANGED_QUIET_MS);
    await waitFor(h.actor, (s) => s.matches({ connected: { tools: 'current' } }));
    expect(listings).toBe(2);
    expect(catalogs).toEqual([['echo'], ['echo', 'second']]);
  });

  it('a failed refresh keeps the old list and records the error', async () => {
    const h = startServer();
    const live = await connect(h);
    live.listTools = async () => {
      throw new Error('Method not found');
    };
    live.emit({ type: 'tools-changed' });
    h.advance(LIST_CHANGED_QUIET_MS);
    await waitFor(h.actor, (s) => s.context.lastError !== undefined);
    expect(stateOf(h)).toBe('connected');
    expect(h.actor.getSnapshot().context.lastError).toMatchObject({
      kind: 'call',
      detail: { cause: 'refreshFailed', list: 'tools', message: 'Method not found' },
    });
    expect(h.actor.getSnapshot().context.catalog?.tools.map((t) => t.name)).toEqual(['echo']);
  });

  it('stderr lines are kept as a bounded tail and emitted', async () => {
    const h = startServer();
    const live = await connect(h);
    const lines: string[] = [];
    h.actor.on('stderr', (e) => lines.push(e.line));
    for (let i = 1; i <= 30; i++) live.emit({ type: 'stderr', line: `line ${i}` });
    const tail = h.actor.getSnapshot().context.stderrTail.split('\n');
    expect(tail).toHaveLength(20);
    expect(tail[0]).toBe('line 11');
    expect(tail.at(-1)).toBe('line 30');
    expect(lines).toHaveLength(30);
  });
});

describe('needsAuth', () => {
  async function inNeedsAuth() {
    const h = startServer();
    h.actor.send({ type: 'CONNECT' });
    await failConnect(h, 'auth');
    return h;
  }

  it('AUTHENTICATED → connecting', async () => {
    const h = await inNeedsAuth();
    h.actor.send({ type: 'AUTHENTICATED' });
    expect(stateOf(h)).toBe('connecting');
    expect(h.attempts).toHaveLength(2);
  });

  it('CONNECT stays (no new attempt); RETRY → connecting; CLOSE → closed', async () => {
    const h = await inNeedsAuth();
    h.actor.send({ type: 'CONNECT' });
    expect(stateOf(h)).toBe('needsAuth');
    expect(h.attempts).toHaveLength(1);
    h.actor.send({ type: 'RETRY' });
    expect(stateOf(h)).toBe('connecting');
    const g = await inNeedsAuth();
    g.actor.send({ type: 'CLOSE' });
    expect(stateOf(g)).toBe('closed');
  });
});

describe('backoff', () => {
  it.each([
    ['lazy', 'closed'],
    ['eager', 'connecting'],
    ['keep-alive', 'connecting'],
  ] as const)('%s: when the delay is over → %s', async (lifecycle, next) => {
    const h = startServer({ lifecycle });
    h.actor.send({ type: 'CONNECT' });
    await failConnect(h);
    h.advance(999);
    expect(stateOf(h)).toBe('backoff');
    h.advance(1);
    expect(stateOf(h)).toBe(next);
    expect(h.actor.getSnapshot().context).toMatchObject({
      backoffDelayMs: undefined,
      nextRetryAt: undefined,
    });
  });

  it('CONNECT stays (callers fail fast); RETRY → connecting; CLOSE → closed', async () => {
    const h = startServer();
    h.actor.send({ type: 'CONNECT' });
    await failConnect(h);
    h.actor.send({ type: 'CONNECT' });
    expect(stateOf(h)).toBe('backoff');
    expect(h.attempts).toHaveLength(1);
    h.actor.send({ type: 'RETRY' });
    expect(stateOf(h)).toBe('connecting');
    await failConnect(h);
    h.actor.send({ type: 'CLOSE' });
    expect(stateOf(h)).toBe('closed');
    // The timer was cancelled with the state.
    h.advance(BACKOFF_CAP_MS);
    expect(stateOf(h)).toBe('closed');
  });

  it('waits 1 s, 2 s, 4 s … doubling up to the 5 min cap (jitter at its maximum)', async () => {
    const h = startServer({ lifecycle: 'keep-alive', jitter: 1 });
    h.actor.send({ type: 'CONNECT' });
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 11; attempt++) {
      await failConnect(h);
      const { context } = h.actor.getSnapshot();
      expect(context.attempt).toBe(attempt);
      expect(context.nextRetryAt).toBe(Date.now() + (context.backoffDelayMs ?? Number.NaN));
      delays.push(context.backoffDelayMs ?? Number.NaN);
      h.advance((context.backoffDelayMs ?? 0) - 1);
      expect(stateOf(h)).toBe('backoff');
      h.advance(1);
      expect(stateOf(h)).toBe('connecting');
    }
    expect(delays).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000,
    ]);
  });

  it('full jitter scales the ceiling by the drawn fraction', async () => {
    const h = startServer({ lifecycle: 'keep-alive', jitter: 0.5 });
    h.actor.send({ type: 'CONNECT' });
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      await failConnect(h);
      delays.push(h.actor.getSnapshot().context.backoffDelayMs ?? Number.NaN);
      h.advance(delays.at(-1) ?? 0);
    }
    expect(delays).toEqual([500, 1_000, 2_000]);
  });

  it('the unprovided drawJitter draws from Math.random', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.25);
    const h = startServer({ lifecycle: 'keep-alive', jitter: 'random' });
    h.actor.send({ type: 'CONNECT' });
    await failConnect(h);
    expect(h.actor.getSnapshot().context.backoffDelayMs).toBe(250);
  });

  it('fullJitterDelayMs stays within [0, ceiling] and the ceiling is capped', () => {
    expect(backoffCeilingMs(1)).toBe(1_000);
    expect(backoffCeilingMs(10)).toBe(BACKOFF_CAP_MS);
    expect(backoffCeilingMs(10_000)).toBe(BACKOFF_CAP_MS);
    expect(fullJitterDelayMs(3, 0)).toBe(0);
    expect(fullJitterDelayMs(3, 0.999)).toBe(3_996);
    expect(fullJitterDelayMs(3, 7)).toBe(4_000);
  });
});

describe('closed', () => {
  it('CONNECT → connecting; RETRY → connecting', () => {
    const a = startServer();
    a.actor.send({ type: 'CLOSE' });
    a.actor.send({ type: 'CONNECT' });
    expect(stateOf(a)).toBe('connecting');
    const b = startServer();
    b.actor.send({ type: 'CLOSE' });
    b.actor.send({ type: 'RETRY' });
    expect(stateOf(b)).toBe('connecting');
  });
});

describe('reports', () => {
  function recorder() {
    return createActor(
      fromTransition((events: ServerToParentEvent[], event: ServerToParentEvent) => [...events, event], []),
    ).start();
  }

  it('the parent gets SERVER.STATUS on every state entry and SERVER.CATALOG after connect and refresh', async () => {
    const parent = recorder();
    const h = startServer({ parentRef: parent });
    const emitted: ServerEmitted[] = [];
    h.actor.on('*', (e) => emitted.push(e));
    const live = await connect(h);
    live.tools = [tool('echo'), tool('new')];
    live.emit({ type: 'tools-changed' });
    h.advance(LIST_CHANGED_QUIET_MS);
    await waitFor(h.actor, (s) => s.context.catalog?.tools.length === 2);
    live.emit({ type: 'closed', error: 'gone' });
    await h.closeEnded();

    const events = parent.getSnapshot().context;
    expect(events.map((e) => (e.type === 'SERVER.STATUS' ? e.state : 'catalog'))).toEqual([
      'init',
      'connecting',
      'connected',
      'catalog',
      'catalog',
      'closed',
    ]);
    expect(events.every((e) => e.name === 'demo' && e.generation === 7)).toBe(true);
    expect(events.at(-1)).toMatchObject({
      type: 'SERVER.STATUS',
      state: 'closed',
      lastError: { kind: 'exited', detail: { cause: 'connectionLost', reason: 'gone' } },
    });
    const catalogEvent = events[3];
    expect(catalogEvent?.type === 'SERVER.CATALOG' && catalogEvent.catalog.tools.map((t) => t.name)).toEqual([
      'echo',
    ]);
    // Host listeners hear the same payloads (they subscribed after `init` was reported).
    expect(emitted.map((e) => e.type)).toEqual(['status', 'status', 'catalog', 'catalog', 'status']);
    expect(emitted[0]).toEqual({ type: 'status', name: 'demo', generation: 7, state: 'connecting' });
  });

  it('keeps the cached catalog it was given until a live one arrives', async () => {
    const knownCatalog = { tools: [tool('cached')], resources: [] };
    const h = startServer({ knownCatalog });
    expect(h.actor.getSnapshot().context.knownCatalog).toEqual(knownCatalog);
    expect(h.actor.getSnapshot().context.catalog).toBeUndefined();
    await connect(h);
    expect(h.actor.getSnapshot().context.catalog?.tools.map((t) => t.name)).toEqual(['echo']);
  });
});

describe('trail', () => {
  it('remembers the states entered and when, newest last, at most TRAIL_LENGTH of them', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    const start = Date.now();
    h.actor.send({ type: 'CONNECT' });
    h.advance(500);
    await failConnect(h, 'exited');
    expect(h.actor.getSnapshot().context.trail).toEqual([
      { state: 'init', at: start },
      { state: 'connecting', at: start },
      { state: 'backoff', at: start + 500 },
    ]);
    for (let i = 0; i < TRAIL_LENGTH; i++) {
      h.advance(BACKOFF_CAP_MS);
      await failConnect(h, 'exited');
    }
    const trail = h.actor.getSnapshot().context.trail;
    expect(trail).toHaveLength(TRAIL_LENGTH);
    expect(trail.at(-1)).toEqual({ state: 'backoff', at: Date.now() });
    expect(trail.map((v) => v.state).slice(-4)).toEqual(['connecting', 'backoff', 'connecting', 'backoff']);
  });
});

describe('connector contract', () => {
  it('an adapter that rejects with ConnectError("auth") reaches needsAuth through the real connect actor', async () => {
    const connector: Connector = async (): Promise<Connection> => {
      throw new ConnectError('auth', 'HTTP 401');
    };
    const actor = createActor(serverLogic, {
      input: { definition: definition(), generation: 1, connector },
    }).start();
    actor.send({ type: 'CONNECT' });
    await waitFor(actor, (s) => s.matches('needsAuth'));
    actor.stop();
  });
});

describe("the shared host's copy (HOST_STATE)", () => {
  it('what the connector hears of the host copy is in the snapshot, while connecting and connected; gone with the connection', async () => {
    const h = startServer({ lifecycle: 'keep-alive' });
    h.actor.send({ type: 'CONNECT' });
    const attempt = h.current();
    attempt.options.onHostState?.({ hostPid: 7, state: 'connecting', tags: ['starting'] });
    expect(h.actor.getSnapshot().context.hostCopy).toEqual({
      hostPid: 7,
      state: 'connecting',
      tags: ['starting'],
    });
    attempt.succeed();
    await waitFor(h.actor, (s) => s.matches('connected'));
    const backoff = { hostPid: 7, state: 'backoff' as const, tags: ['failed' as const], nextRetryAt: 1_000 };
    attempt.options.onHostState?.(backoff);
    expect(stateOf(h)).toBe('connected');
    expect(h.actor.getSnapshot().context.hostCopy).toEqual(backoff);
    h.actor.send({ type: 'CLOSE' });
    await h.closeEnded();
    expect(h.actor.getSnapshot().context.hostCopy).toBeUndefined();
  });
});
