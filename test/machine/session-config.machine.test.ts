// A live config in the session chart (DESIGN.md rule 14): the watcher's burst is debounced by the
// `configDebounce` delay (SimulatedClock), an applied edit spawns added servers and drains removed and
// changed ones (their calls in flight finish, then they close), and a bad save is told once.

import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock, waitFor } from 'xstate';
import { drainServerLogic } from '../../src/actors/drain-server.ts';
import type { ServerDefinition } from '../../src/config/types.ts';
import type { Connector } from '../../src/machines/server-types.ts';
import {
  CONFIG_DEBOUNCE_MS,
  type ConfigChange,
  type LoadedSession,
  serverId,
  sessionMachine,
} from '../../src/machines/session.machine.ts';
import { loadedConfig } from '../support/config.ts';
import { definition } from './fakes.ts';

const connector: Connector = async () => {
  throw new Error('not used');
};

/** A connected server stand-in: counts calls in flight, closes on CLOSE (and records both). */
const log: string[] = [];
const stubServer = createMachine({
  types: {} as {
    input: { definition: ServerDefinition };
    context: { name: string; command?: string; inFlight: number };
  },
  context: ({ input }) => ({ name: input.definition.name, command: input.definition.command, inFlight: 0 }),
  initial: 'connected',
  states: {
    connected: {
      tags: 'usable',
      on: {
        CALL_STARTED: { actions: ({ context }) => context.inFlight++ },
        CALL_FINISHED: { actions: ({ context }) => context.inFlight-- },
        CLOSE: {
          target: 'closed',
          actions: ({ context }) => log.push(`${context.name} closed with ${context.inFlight} in flight`),
        },
      },
    },
    closed: { tags: 'resting' },
  },
});

function harness() {
  log.length = 0;
  const counts = { checkConfig: 0, forced: 0, notifyConfig: 0, updateToolSearch: 0 };
  const clock = new SimulatedClock();
  const logic = sessionMachine.provide({
    actors: {
      server: stubServer as never,
      loadSession: fromPromise<LoadedSession>(async () => ({
        config: loadedConfig([
          definition({ name: 'alpha' }),
          definition({ name: 'notes', command: 'notes-v1' }),
        ]),
        cached: {},
        toolSearchDescription: 'alpha, notes',
      })) as never,
      warmup: fromPromise<void>(async () => undefined) as never,
      serversClosed: fromPromise<void>(async () => undefined) as never,
      shutdown: fromPromise<void>(async () => undefined) as never,
      configWatch: fromCallback(() => undefined),
      drainServer: drainServerLogic,
      cacheWriter: fromCallback(() => undefined),
      trace: fromCallback(() => undefined),
      stats: fromCallback(() => undefined),
    },
    actions: {
      checkConfig: ({ event }) => {
        counts.checkConfig++;
        if (event.type === 'CONFIG_CHECK' && event.force) counts.forced++;
      },
      notifyConfig: () => {
        counts.notifyConfig++;
      },
      updateToolSearch: () => {
        counts.updateToolSearch++;
      },
    },
  });
  const actor = createActor(logic, { input: { connector }, clock }).start();
  const child = (name: string) => actor.getSnapshot().children[serverId(name)];
  const change = (c: Partial<ConfigChange>) =>
    actor.send({
      type: 'CONFIG_CHANGED',
      generation: actor.getSnapshot().context.generation,
      config: loadedConfig([]),
      added: [],
      removed: [],
      changed: [],
      catalogs: {},
      toolSearchDescription: 'edited',
      note: 'config changed',
      ...c,
    });
  return { actor, clock, counts, child, change };
}

async function running(actor: ReturnType<typeof harness>['actor']) {
  actor.send({ type: 'SESSION_START', request: { cwd: '/p', projectTrusted: true } });
  await waitFor(actor, (s) => s.matches({ open: 'running' }));
}

describe('session machine: live config', () => {
  it('debounces the watcher: one forced check, configDebounce after the last touch', async () => {
    const { actor, clock, counts } = harness();
    await running(actor);
    actor.send({ type: 'CONFIG_TOUCHED' });
    clock.increment(CONFIG_DEBOUNCE_MS - 1);
    actor.send({ type: 'CONFIG_TOUCHED' }); // an editor's rename after its write
    clock.increment(CONFIG_DEBOUNCE_MS - 1);
    expect(counts.forced).toBe(0);
    clock.increment(1);
    expect(counts.forced).toBe(1);
    clock.increment(CONFIG_DEBOUNCE_MS * 10);
    expect(counts.forced).toBe(1);
    // A turn's end checks too (not forced: the runtime compares the files' sizes and times).
    actor.send({ type: 'TURN_END' });
    expect(counts.checkConfig).toBe(2);
  });

  it('spawns an added server; a removed one finishes its call in flight, then closes and stops', async () => {
    const { actor, child, change, counts } = harness();
    await running(actor);
    child('alpha')!.send({ type: 'CALL_STARTED' });
    change({
      config: loadedConfig([
        definition({ name: 'notes', command: 'notes-v1' }),
        definition({ name: 'beta' }),
      ]),
      added: ['beta'],
      removed: ['alpha'],
      note: 'config changed: +beta −alpha',
    });
    expect(child('beta')).toBeDefined();
    expect(actor.getSnapshot().context.retiring).toEqual(['alpha']);
    expect(actor.getSnapshot().context.configNote).toBe('config changed: +beta −alpha');
    expect(counts.updateToolSearch).toBe(1);
    expect(log).toEqual([]);
    expect(child('alpha')).toBeDefined(); // still answering its call
    child('alpha')!.send({ type: 'CALL_FINISHED' });
    await waitFor(actor, (s) => s.children[serverId('alpha')] === undefined);
    expect(log).toEqual(['alpha closed with 0 in flight']);
    expect(actor.getSnapshot().context.retiring).toEqual([]);
  });

  it('restarts a changed server after its calls, from the new definition', async () => {
    const { actor, child, change } = harness();
    await running(actor);
    const old = child('notes')!;
    old.send({ type: 'CALL_STARTED' });
    change({
      config: loadedConfig([
        definition({ name: 'alpha' }),
        definition({ name: 'notes', command: 'notes-v2' }),
      ]),
      changed: ['notes'],
    });
    expect(child('notes')).toBe(old);
    old.send({ type: 'CALL_FINISHED' });
    await waitFor(actor, (s) => s.children[serverId('notes')] !== old);
    expect(log).toEqual(['notes closed with 0 in flight']);
    expect((child('notes')!.getSnapshot() as { context: { command?: string } }).context.command).toBe(
      'notes-v2',
    );
  });

  it('tells a rejected save once, and a good save clears it', async () => {
    const { actor, counts, change } = harness();
    await running(actor);
    const generation = actor.getSnapshot().context.generation;
    const bad = {
      type: 'CONFIG_REJECTED',
      generation,
      message: 'mcp.json is not valid JSON (line 3)',
    } as const;
    actor.send(bad);
    actor.send(bad);
    expect(counts.notifyConfig).toBe(1);
    expect(actor.getSnapshot().context.configError).toBe(bad.message);
    change({ config: loadedConfig([definition({ name: 'alpha' })]), removed: ['notes'] });
    expect(actor.getSnapshot().context.configError).toBeUndefined();
    expect(counts.notifyConfig).toBe(2);
  });

  it('a bad save of one file beside a good edit of another: the edit applies, the error stays until repaired, told once', async () => {
    const { actor, counts, change, child } = harness();
    await running(actor);
    const generation = actor.getSnapshot().context.generation;
    const message =
      'config edit not applied, the last good config stays for mcp.json: not valid JSON (line 3)';
    const edit = {
      config: loadedConfig([
        definition({ name: 'alpha' }),
        definition({ name: 'notes', command: 'notes-v1' }),
      ]),
      configError: message,
    };
    // What checkConfig sends for each read while the file stays broken: the error, then what applied.
    actor.send({ type: 'CONFIG_REJECTED', generation, message });
    change({
      ...edit,
      config: loadedConfig([...edit.config.servers, definition({ name: 'beta' })]),
      added: ['beta'],
    });
    expect(child('beta')).toBeDefined();
    expect(actor.getSnapshot().context.configError).toBe(message);
    actor.send({ type: 'CONFIG_REJECTED', generation, message });
    change({ ...edit, config: loadedConfig([definition({ name: 'alpha' })]), removed: ['notes'] });
    expect(actor.getSnapshot().context.configError).toBe(message);
    // Told: the error once, and each applied edit.
    expect(counts.notifyConfig).toBe(3);
    change({ config: loadedConfig([definition({ name: 'alpha' })]), note: 'config fixed: nothing changed' });
    expect(actor.getSnapshot().context.configError).toBeUndefined();
  });

  it('ignores an edit of an earlier generation', async () => {
    const { actor, child } = harness();
    await running(actor);
    actor.send({
      type: 'CONFIG_CHANGED',
      generation: 0,
      config: loadedConfig([]),
      added: [],
      removed: ['alpha', 'notes'],
      changed: [],
      catalogs: {},
      toolSearchDescription: '',
      note: '',
    });
    expect(child('alpha')).toBeDefined();
    expect(actor.getSnapshot().context.retiring).toEqual([]);
  });
});
