// The session supervisor with tiny fakes: a server stand-in machine, a loadSession the test settles by
// hand, and recording host actions. Real parts are exercised in test/integration/supervisor.test.ts.

import { describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor, createMachine, fromPromise, waitFor } from 'xstate';
import type { Connector } from '../../src/adapters/mcp/connection-port.ts';
import type { LoadedConfig } from '../../src/config/types.ts';
import {
  type LoadedSession,
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

function harness() {
  const pending: Array<{ request: StartRequest; generation: number; resolve: (s: LoadedSession) => void }> =
    [];
  const calls: Record<string, number> = {};
  const warmed: string[] = [];
  const count = (name: string) => () => {
    calls[name] = (calls[name] ?? 0) + 1;
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
      shutdown: fromPromise(async () => {}),
    },
    actions: {
      registerTools: count('registerTools'),
      syncActiveTools: count('syncActiveTools'),
      publishStatus: count('publishStatus'),
      notifyStatus: count('notifyStatus'),
      writeCache: count('writeCache'),
      reportDiagnostics: count('reportDiagnostics'),
    },
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
  return { actor, pending, calls, loaded, children, warmed };
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
    await waitFor(actor, (s) => s.matches('running'));
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
    await waitFor(actor, (s) => s.matches('running'));
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
    await waitFor(actor, (s) => s.matches('running'));
    expect(actor.getSnapshot().context.request?.cwd).toBe('/three');
    expect(children()).toEqual([serverId('fresh')]);
  });

  it('a start while running stops the old generation before spawning the new one', async () => {
    const { actor, pending, loaded, children } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['old']));
    await waitFor(actor, (s) => s.matches('running'));
    actor.send(start());
    await waitFor(actor, (s) => s.matches('starting'));
    expect(children()).toEqual([]);
    pending[1]!.resolve(loaded(['new']));
    await waitFor(actor, (s) => s.matches('running'));
    expect(children()).toEqual([serverId('new')]);
    expect(actor.system.get(serverId('old'))).toBeUndefined();
  });

  it('drops SERVER.* events from a stale generation', async () => {
    const { actor, pending, calls, loaded } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['a']));
    await waitFor(actor, (s) => s.matches('running'));
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
    await waitFor(actor, (s) => s.matches('running'));
    const before = calls.syncActiveTools ?? 0;
    actor.send({ type: 'ACTIVATE', names: ['a__x'] });
    actor.send({ type: 'ACTIVATE', names: ['a__y', 'a__x'] });
    expect(actor.getSnapshot().context.activated).toEqual(['a__x', 'a__y']);
    expect(calls.syncActiveTools).toBe(before + 2);
  });

  it('DISABLE stops the server actor for the session; ENABLE brings it back', async () => {
    const { actor, pending, loaded, children } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['a', 'b']));
    await waitFor(actor, (s) => s.matches('running'));
    actor.send({ type: 'DISABLE', server: 'a' });
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
    await waitFor(actor, (s) => s.matches('running'));
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
    await waitFor(actor, (s) => s.matches('running'));
    received.length = 0;
    actor.send({ type: 'TURN_END' });
    expect(received).toEqual([{ id: 'e', type: 'CONNECT' }]);
  });

  it('shutdown flushes, stops every child and returns to idle', async () => {
    const { actor, pending, loaded, children } = harness();
    actor.send(start());
    pending[0]!.resolve(loaded(['a', 'b']));
    await waitFor(actor, (s) => s.matches('running'));
    actor.send({ type: 'SESSION_SHUTDOWN' });
    await waitFor(actor, (s) => s.matches('idle'));
    expect(children()).toEqual([]);
    expect(actor.system.get(serverId('a'))).toBeUndefined();
  });
});
