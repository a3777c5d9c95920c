// The session supervisor with tiny fakes: a server stand-in machine, a loadSession the test settles by
// hand, and recording host actions. Real parts are exercised in test/integration/supervisor.test.ts.

import { describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor, createMachine, fromCallback, fromPromise, waitFor } from 'xstate';
import type { LoadedConfig } from '../../src/config/types.ts';
import type { Connector } from '../../src/machines/server-types.ts';
import {
  type CacheWrite,
  type LoadedSession,
  type RecorderInput,
  type ServersClosedInput,
  type ShutdownInput,
  type StartRequest,
  serverId,
  sessionMachine,
} from '../../src/machines/session.machine.ts';
import { loadedConfig } from '../support/config.ts';
import { definition } from './fakes.ts';

const connector: Connector = async () => {
  throw new Error('not used');
};

function config(names: string[], lifecycle: 'lazy' | 'eager' = 'lazy'): LoadedConfig {
  return loadedConfig(names.map((name) => definition({ name, lifecycle })));
}

/** A server stand-in that records what it was told. */
const received: Array<{ id: string; type: string }> = [];
const stubServer = createMachine({
  types: {} as { input: { definition: { name: string } }; context: { name: string } },
  context: ({ input }) => ({ name: input.definition.name }),
  on: {
    '*': { actions: ({ context, event }) => received.push({ id: context.name, type: event.type }) },
  },
});

/** Records what the session's recorders went through: `<id> started|stopped|<event>`. */
function recorder(id: string, log: string[]) {
  return fromCallback<CacheWrite, RecorderInput>(({ input, receive }) => {
    log.push(`${id} started ${input.config.servers.map((d) => d.name).join(',')}`);
    receive((event) => log.push(`${id} ${event.type} ${event.name}`));
    return () => log.push(`${id} stopped`);
  });
}

function harness(options: { realWriteCache?: boolean; closeAtOnce?: boolean; flushAtOnce?: boolean } = {}) {
  const pending: Array<{ request: StartRequest; generation: number; resolve: (s: LoadedSession) => void }> =
    [];
  const calls: Record<string, number> = {};
  const warmed: string[] = [];

  const count = (name: string) => () => {
    calls[name] = (calls[name] ?? 0) + 1;
  };
  const recorded: string[] = [];
  const shutdowns: ShutdownInput[] = [];
  /** The shutdown's waits for its servers to close: settled by the test unless `closeAtOnce`. */
  const closings: Array<{ servers: string[]; resolve: () => void }> = [];
  /** The shutdown's waits for the recorders' flush: settled by the test unless `flushAtOnce`. */
  const flushes: Array<() => void> = [];
  const counted = {
    registerTools: count('registerTools'),
    syncActiveTools: count('syncActiveTools'),
    publishStatus: count('publishStatus'),
    notifyStatus: count('notifyStatus'),
    reportDiagnostics: count('reportDiagnostics'),
  };
  const logic = sessionMachine.provide({
    actors: {
      server: stubServer as never,
      loadSession: fromPromise<LoadedSession, { request: StartRequest; generation: number }>(
        ({ input }) => new Promise((resolve) => pending.push({ ...input, resolve })),
      ),
      warmup: fromPromise<void, { servers: AnyActorRef[]; limit: number }>(async ({ input }) => {
        warmed.push(...input.servers.map((ref) => ref.id));
      }),
      serversClosed: fromPromise<void, ServersClosedInput>(({ input }) => {
        const servers = input.servers.map((ref) => ref.id).sort();
        recorded.push(`serversClosed ${servers.join(',')}`);
        if (options.closeAtOnce !== false) return Promise.resolve();
        return new Promise<void>((resolve) => closings.push({ servers, resolve }));
      }),
      shutdown: fromPromise<void, ShutdownInput>(async ({ input, system }) => {
        if (system.get(serverId('a'))) throw new Error('servers still running at shutdown');
        shutdowns.push(input);
        recorded.push('shutdown');
        if (options.flushAtOnce === false) {
          await new Promise<void>((resolve) => flushes.push(resolve));
          recorded.push('flushed');
        }
      }),
      configWatch: fromCallback(() => undefined),
      cacheWriter: recorder('cacheWriter', recorded),
      trace: recorder('trace', recorded) as never,
      stats: recorder('stats', recorded) as never,
    },
    actions: options.realWriteCache ? counted : { ...counted, writeCache: count('writeCache') },
  });
  const actor = createActor(logic, { input: { connector } }).start();
  const loaded = (names: string[], lifecycle: 'lazy' | 'eager' = 'lazy'): LoadedSession => ({
    config: config(names, lifecycle),
    cached: {},
    toolSearchDescription: `servers: ${names.join(',')}`,
  });
  const children = () =>
    Object.keys(actor.getSnapshot().children)
      .filter((id) => id.startsWith('server:'))
      .sort();
  /** A start while the session is open: the old generation stops first, then the new one starts. */
  const restart = async (cwd?: string) => {
    actor.send(start(cwd));
    await waitFor(actor, (s) => s.matches('starting'));
  };
  return { actor, pending, calls, loaded, children, warmed, recorded, shutdowns, closings, flushes, restart };
}

const start = (cwd = '/p'): { type: 'SESSION_START'; request: StartRequest } => ({
  type: 'SESSION_START',
  request: { cwd, projectTrusted: true },
});

describe('session machine', () => {
  it('starts: loads, spawns one server actor per enabled server, registers tools once running', async () => {
    const { actor, pending, calls, loaded, children } = harness();
    actor.send(start());
    expect(actor.getSnapshot().value).toBe('starting');
    expect(actor.getSnapshot().context.generation).toBe(1);
    pending[0]!.resolve(loaded(['a', 'b']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    expect(children()).toEqual([serverId('a'), serverId('b')]);
    expect(actor.system.get(serverId('a'))).toBeDefined();
    expect(calls.registerTools).toBe(1);
    expect(actor.getSnapshot().context.toolSearchDescription).toBe('servers: a,b');
  });

  it('warms up eager servers and servers with no known tools, not cached lazy ones', async () => {
    const { actor, pending, warmed } = harness();
    actor.send(start());
    const session = {
      config: {
        ...config(['lazy-cached', 'lazy-new']),
        servers: [...config(['lazy-cached', 'lazy-new']).servers, ...config(['eager'], 'eager').servers],
      },
      cached: { 'lazy-cached': { tools: [], resources: [] }, eager: { tools: [], resources: [] } },
      toolSearchDescription: '',
    };
    pending[0]!.resolve(session);
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    expect(warmed.sort()).toEqual([serverId('eager'), serverId('lazy-new')]);
  });

  it('three rapid starts: only the last generation survives, earlier loads are dropped', async () => {
    const { actor, pending, loaded, children } = harness();
    actor.send(start('/one'));
    actor.send(start('/two'));
    actor.send(start('/three'));
    expect(actor.getSnapshot().context.generation).toBe(3);
    expect(pending.map((p) => p.generation)).toEqual([1, 2, 3]);
    // The stale loads finish late and must not win.
    pending[0]!.resolve(loaded(['stale-1']));
    pending[1]!.resolve(loaded(['stale-2']));
    pending[2]!.resolve(loaded(['fresh']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    expect(actor.getSnapshot().context.request?.cwd).toBe('/three');
    expect(children()).toEqual([serverId('fresh')]);
  });

  it('a start while running stops the old generation as a shutdown does, then starts the new one', async () => {
    const { actor, pending, loaded, children, recorded, closings } = harness({ closeAtOnce: false });
    actor.send(start('/one'));
    pending[0]!.resolve(loaded(['same']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    received.length = 0;
    recorded.length = 0;
    actor.send(start('/two'));
    // The old servers close first: nothing of the new generation is loaded or spawned meanwhile.
    expect(received).toEqual([{ id: 'same', type: 'CLOSE' }]);
    expect(actor.getSnapshot().matches({ open: { stopping: 'closingServers' } })).toBe(true);
    expect(actor.getSnapshot().context.generation).toBe(1);
    expect(pending).toHaveLength(1);
    expect(children()).toEqual([serverId('same')]);
    // Another start meanwhile: the latest one starts.
    actor.send(start('/three'));
    closings[0]!.resolve();
    await waitFor(actor, (s) => s.matches('starting'));
    expect(recorded).toEqual([
      `serversClosed ${serverId('same')}`,
      'shutdown',
      'cacheWriter stopped',
      'trace stopped',
      'stats stopped',
    ]);
    expect(children()).toEqual([]);
    expect(pending.map((p) => [p.generation, p.request.cwd])).toEqual([
      [1, '/one'],
      [2, '/three'],
    ]);
    pending[1]!.resolve(loaded(['same']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    expect(children()).toEqual([serverId('same')]);
    expect(actor.getSnapshot().context.request?.cwd).toBe('/three');
  });

  it('the old generation drops its events while it stops for a new start, and stays dropped after', async () => {
    const { actor, pending, calls, loaded, closings } = harness({ closeAtOnce: false });
    actor.send(start());
    pending[0]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    actor.send(start());
    const catalog = { tools: [], resources: [], capabilities: {}, transport: 'stdio' as const };
    actor.send({ type: 'SERVER.CATALOG', name: 'a', generation: 1, catalog });
    actor.send({ type: 'SERVER.STATUS', name: 'a', generation: 1, state: 'backoff' });
    closings[0]!.resolve();
    await waitFor(actor, (s) => s.matches('starting'));
    pending[1]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    actor.send({ type: 'SERVER.CATALOG', name: 'a', generation: 1, catalog });
    actor.send({ type: 'SERVER.STATUS', name: 'a', generation: 1, state: 'backoff' });
    expect(actor.getSnapshot().context.catalogs.a).toBeUndefined();
    expect(calls.writeCache).toBeUndefined();
    expect(calls.notifyStatus).toBeUndefined();
  });

  it("a new generation's recorders start only once the old generation's have flushed", async () => {
    const { actor, pending, loaded, recorded, flushes } = harness({ flushAtOnce: false });
    actor.send(start());
    pending[0]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    recorded.length = 0;
    actor.send(start());
    await waitFor(actor, (s) => s.matches({ open: { stopping: 'flushing' } }));
    await waitFor(actor, () => flushes.length === 1);
    expect(pending).toHaveLength(1);
    flushes[0]!();
    await waitFor(actor, (s) => s.matches('starting'));
    pending[1]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    expect(recorded).toEqual([
      'serversClosed server:a',
      'shutdown',
      'flushed',
      'cacheWriter stopped',
      'trace stopped',
      'stats stopped',
      'cacheWriter started a',
      'trace started a',
      'stats started a',
    ]);
  });

  it('a shutdown while the session stops for a new start ends it: nothing new starts', async () => {
    const { actor, pending, loaded, children, closings } = harness({ closeAtOnce: false });
    actor.send(start());
    pending[0]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    actor.send(start());
    actor.send({ type: 'SESSION_SHUTDOWN' });
    closings[0]!.resolve();
    await waitFor(actor, (s) => s.matches('idle'));
    expect(pending).toHaveLength(1);
    expect(children()).toEqual([]);
    expect(actor.getSnapshot().context.restart).toBeUndefined();
  });

  it('a start while a shutdown closes the servers starts the new session once the old one has stopped', async () => {
    const { actor, pending, loaded, closings } = harness({ closeAtOnce: false });
    actor.send(start());
    pending[0]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    actor.send({ type: 'SESSION_SHUTDOWN' });
    actor.send(start('/next'));
    expect(pending).toHaveLength(1);
    closings[0]!.resolve();
    await waitFor(actor, (s) => s.matches('starting'));
    expect(pending[1]!.request.cwd).toBe('/next');
  });

  it('drops SERVER.* events from a stale generation', async () => {
    const { actor, pending, calls, loaded } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    const catalog = {
      tools: [{ name: 't', inputSchema: {} }],
      resources: [],
      capabilities: {},
      transport: 'stdio' as const,
    };
    actor.send({ type: 'SERVER.CATALOG', name: 'a', generation: 0, catalog });
    actor.send({ type: 'SERVER.STATUS', name: 'a', generation: 0, state: 'backoff' });
    expect(actor.getSnapshot().context.catalogs.a).toBeUndefined();
    expect(calls.writeCache).toBeUndefined();
    expect(calls.notifyStatus).toBeUndefined();
    actor.send({ type: 'SERVER.CATALOG', name: 'a', generation: 1, catalog });
    actor.send({ type: 'SERVER.STATUS', name: 'a', generation: 1, state: 'backoff' });
    expect(actor.getSnapshot().context.catalogs.a?.tools).toHaveLength(1);
    expect(calls.writeCache).toBe(1);
    expect(calls.notifyStatus).toBe(1);
  });

  it('ACTIVATE accumulates activated tools and syncs the active set', async () => {
    const { actor, pending, calls, loaded } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    const before = calls.syncActiveTools ?? 0;
    actor.send({ type: 'ACTIVATE', names: ['a__x'] });
    actor.send({ type: 'ACTIVATE', names: ['a__y', 'a__x'] });
    expect(actor.getSnapshot().context.activated).toEqual(['a__x', 'a__y']);
    expect(calls.syncActiveTools).toBe(before + 2);
  });

  it('DISABLE closes the server, stopping its actor once it reports closed; ENABLE brings it back', async () => {
    const { actor, pending, loaded, children } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['a', 'b']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    received.length = 0;
    actor.send({ type: 'DISABLE', server: 'a' });
    expect(received).toEqual([{ id: 'a', type: 'CLOSE' }]);
    // Its connection is closing: the actor stays until it says so (the close can be waited for).
    expect(children()).toEqual([serverId('a'), serverId('b')]);
    const generation = actor.getSnapshot().context.generation;
    actor.send({ type: 'SERVER.STATUS', name: 'a', generation, state: 'closed' });
    expect(children()).toEqual([serverId('b')]);
    expect(actor.getSnapshot().context.disabled).toEqual(['a']);
    actor.send({ type: 'DISABLE', server: 'nope' });
    expect(actor.getSnapshot().context.disabled).toEqual(['a']);
    actor.send({ type: 'ENABLE', server: 'a' });
    expect(children()).toEqual([serverId('a'), serverId('b')]);
    expect(actor.getSnapshot().context.disabled).toEqual([]);
  });

  it('RECONNECT closes and retries the named server only', async () => {
    const { actor, pending, loaded } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['a', 'b']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    received.length = 0;
    actor.send({ type: 'RECONNECT', server: 'b' });
    expect(received).toEqual([
      { id: 'b', type: 'CLOSE' },
      { id: 'b', type: 'RETRY' },
    ]);
  });

  it('TURN_END asks eager servers to connect, not lazy ones', async () => {
    const { actor, pending, loaded } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['e'], 'eager'));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    received.length = 0;
    actor.send({ type: 'TURN_END' });
    expect(received).toEqual([{ id: 'e', type: 'CONNECT' }]);
  });

  it('shutdown flushes, stops every child and returns to idle', async () => {
    const { actor, pending, loaded, children } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['a', 'b']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    actor.send({ type: 'SESSION_SHUTDOWN' });
    await waitFor(actor, (s) => s.matches('idle'));
    expect(children()).toEqual([]);
    expect(actor.system.get(serverId('a'))).toBeUndefined();
  });

  it('a server enabled again while it still closes keeps its actor', async () => {
    const { actor, pending, loaded, children } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['a', 'b'], 'eager'));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    actor.send({ type: 'DISABLE', server: 'a' });
    received.length = 0;
    actor.send({ type: 'ENABLE', server: 'a' });
    expect(received).toEqual([{ id: 'a', type: 'CONNECT' }]);
    const generation = actor.getSnapshot().context.generation;
    actor.send({ type: 'SERVER.STATUS', name: 'a', generation, state: 'closed' });
    expect(children()).toEqual([serverId('a'), serverId('b')]);
  });

  it('shutdown tells every server to CLOSE and waits until none is closing before it stops them', async () => {
    const { actor, pending, loaded, children, recorded, closings } = harness({ closeAtOnce: false });
    actor.send(start());
    pending[0]!.resolve(loaded(['a', 'b']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    received.length = 0;
    recorded.length = 0;
    actor.send({ type: 'SESSION_SHUTDOWN' });
    expect(received).toEqual([
      { id: 'a', type: 'CLOSE' },
      { id: 'b', type: 'CLOSE' },
    ]);
    expect(actor.getSnapshot().matches({ open: { stopping: 'closingServers' } })).toBe(true);
    expect(recorded).toEqual([`serversClosed ${serverId('a')},${serverId('b')}`]);
    expect(children()).toEqual([serverId('a'), serverId('b')]);
    closings[0]!.resolve();
    await waitFor(actor, (s) => s.matches('idle'));
    expect(children()).toEqual([]);
    expect(recorded.slice(1, 2)).toEqual(['shutdown']);
  });

  it('the recorders run while the session is open; the shutdown waits for the connections and them', async () => {
    const { actor, pending, loaded, recorded, shutdowns } = harness();
    actor.send(start());
    expect(recorded).toEqual([]);
    pending[0]!.resolve(loaded(['a', 'b']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    expect(recorded).toEqual(['cacheWriter started a,b', 'trace started a,b', 'stats started a,b']);
    actor.send({ type: 'SESSION_SHUTDOWN' });
    await waitFor(actor, (s) => s.matches('idle'));
    // The server actors had stopped (closing their connections) and the recorders still ran.
    expect(recorded.slice(3)).toEqual([
      'serversClosed server:a,server:b',
      'shutdown',
      'cacheWriter stopped',
      'trace stopped',
      'stats stopped',
    ]);
    expect(shutdowns[0]!.recorders.map((ref) => ref.id)).toEqual(['cacheWriter', 'trace', 'stats']);
  });

  it('a new generation stops the recorders of the old one and starts its own', async () => {
    const { actor, pending, loaded, recorded, restart } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['old']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    recorded.length = 0;
    await restart();
    expect(recorded.slice(2)).toEqual(['cacheWriter stopped', 'trace stopped', 'stats stopped']);
    pending[1]!.resolve(loaded(['new']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    expect(recorded.slice(5)).toEqual(['cacheWriter started new', 'trace started new', 'stats started new']);
  });

  it("a current server's live catalog goes to the cache writer", async () => {
    const { actor, pending, loaded, recorded } = harness({ realWriteCache: true });
    actor.send(start());
    pending[0]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    const catalog = { tools: [], resources: [], capabilities: {}, transport: 'stdio' as const };
    actor.send({ type: 'SERVER.CATALOG', name: 'a', generation: 0, catalog });
    actor.send({ type: 'SERVER.CATALOG', name: 'a', generation: 1, catalog });
    expect(recorded.filter((line) => line.includes('WRITE'))).toEqual(['cacheWriter WRITE a']);
  });

  it('tells the user of a kind of trouble once per server and session; a new session tells again', async () => {
    const { actor, pending, calls, loaded, restart } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['a', 'b']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    const status = (name: string, state: string, generation = actor.getSnapshot().context.generation) =>
      actor.send({ type: 'SERVER.STATUS', name, generation, state });
    status('a', 'backoff');
    status('a', 'connecting');
    status('a', 'backoff');
    status('a', 'needsAuth');
    status('b', 'backoff');
    status('b', 'connected');
    expect(calls.notifyStatus).toBe(3);
    expect(actor.getSnapshot().context.notified).toEqual(['a:backoff', 'a:needsAuth', 'b:backoff']);
    await restart();
    expect(actor.getSnapshot().context.notified).toEqual([]);
    pending[1]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    status('a', 'backoff');
    expect(calls.notifyStatus).toBe(4);
  });

  it("remembers what the model was told for the session's length", async () => {
    const { actor, pending, loaded, restart } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    actor.send({ type: 'MODEL_TOLD', troubles: ['a:timeout'], instructions: ['a'] });
    actor.send({ type: 'MODEL_TOLD', troubles: ['a:timeout', 'a:auth'] });
    expect(actor.getSnapshot().context.troublesTold).toEqual(['a:timeout', 'a:auth']);
    expect(actor.getSnapshot().context.instructionsTold).toEqual(['a']);
    await restart();
    expect(actor.getSnapshot().context.troublesTold).toEqual([]);
    expect(actor.getSnapshot().context.instructionsTold).toEqual([]);
  });

  it("remembers the user's approvals of the session; a stale one is dropped, a new session asks again", async () => {
    const { actor, pending, loaded, restart } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['gh']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    actor.send({ type: 'APPROVED', grant: 'gh@1/a', generation: 1 });
    actor.send({ type: 'APPROVED', grant: 'gh@1/a', generation: 1 });
    actor.send({ type: 'APPROVED', grant: 'gh@1', generation: 0 });
    expect(actor.getSnapshot().context.approved).toEqual(['gh@1/a']);
    await restart();
    expect(actor.getSnapshot().context.approved).toEqual([]);
  });

  it('reports the config diagnostics unless the host has told them', async () => {
    const { actor, pending, loaded, restart } = harness();
    actor.send(start());
    pending[0]!.resolve({ ...loaded(['a']), diagnosticsTold: true });
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    expect(actor.getSnapshot().context.diagnosticsTold).toBe(true);
    await restart();
    expect(actor.getSnapshot().context.diagnosticsTold).toBe(false);
    pending[1]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches({ open: 'running' }));
    expect(actor.getSnapshot().context.diagnosticsTold).toBe(false);
  });
});
