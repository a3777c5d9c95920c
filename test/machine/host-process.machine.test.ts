// The host process's own chart on XState's SimulatedClock: it stops exactly its idle time after its
// last session left, never while one is on the line; a probe neither holds it nor restarts the time;
// a client that has not said what it is holds back the stop; its status's stop time is the chart's.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, SimulatedClock, waitFor } from 'xstate';
import { hostProcessMachine, hostStopsAt, provenClients } from '../../src/machines/host-process.machine.ts';

const IDLE_MS = 60_000;

afterEach(() => {
  vi.useRealTimers();
});

function hostLife() {
  vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
  const clock = new SimulatedClock();
  const seen: string[] = [];
  let finish = () => {};
  const actor = createActor(
    hostProcessMachine.provide({
      actors: {
        shutDown: fromPromise<void>(() => {
          seen.push('shut down');
          return new Promise<void>((resolve) => {
            finish = resolve;
          });
        }),
      },
      actions: { idleStop: () => void seen.push('idle stop') },
    }),
    { clock, input: { idleMs: IDLE_MS } },
  ).start();
  const advance = (ms: number) => {
    vi.setSystemTime(Date.now() + ms);
    clock.increment(ms);
  };
  const join = (id: number) => {
    actor.send({ type: 'CLIENT_JOINED', id, line: `line ${id}` });
    actor.send({ type: 'CLIENT_PROVEN', id });
  };
  const session = (id: number) => {
    join(id);
    actor.send({ type: 'CLIENT_DECIDED', id, probe: false });
  };
  const probe = (id: number) => {
    join(id);
    actor.send({ type: 'CLIENT_DECIDED', id, probe: true });
  };
  const leave = (id: number) => actor.send({ type: 'CLIENT_LEFT', id });
  const closing = () => actor.getSnapshot().matches('closing');
  return { actor, seen, advance, join, session, probe, leave, closing, finish: () => finish() };
}

describe('hostProcess', () => {
  it('nobody ever attached: it stops after exactly its idle time, then closes once shut down', async () => {
    const { actor, seen, advance, closing, finish } = hostLife();
    expect(actor.getSnapshot().value).toEqual({ serving: 'idle' });
    advance(IDLE_MS - 1);
    expect(closing()).toBe(false);
    advance(1);
    expect(closing()).toBe(true);
    expect(seen).toEqual(['idle stop', 'shut down']);
    finish();
    await waitFor(actor, (s) => s.status === 'done');
  });

  it('while a session is on the line it never stops; the last one leaving starts the full idle time', () => {
    const { actor, advance, session, leave, closing } = hostLife();
    session(1);
    session(2);
    expect(actor.getSnapshot().value).toEqual({ serving: 'held' });
    advance(IDLE_MS * 1_000);
    leave(1);
    advance(IDLE_MS * 10);
    expect(actor.getSnapshot().value).toEqual({ serving: 'held' });
    leave(2);
    expect(actor.getSnapshot().value).toEqual({ serving: 'idle' });
    advance(IDLE_MS - 1);
    expect(closing()).toBe(false);
    advance(1);
    expect(closing()).toBe(true);
  });

  it('a session coming back before the time is up holds it; its leaving starts the time anew', () => {
    const { advance, session, leave, closing } = hostLife();
    session(1);
    leave(1);
    advance(IDLE_MS - 1);
    session(2);
    advance(IDLE_MS * 10);
    leave(2);
    advance(IDLE_MS - 1);
    expect(closing()).toBe(false);
    advance(1);
    expect(closing()).toBe(true);
  });

  it('a probe neither holds the host nor restarts the idle time, coming or going', () => {
    const { advance, probe, leave, closing } = hostLife();
    advance(IDLE_MS - 10);
    probe(1);
    advance(5);
    leave(1);
    probe(2);
    advance(4);
    expect(closing()).toBe(false);
    advance(1);
    expect(closing()).toBe(true);
  });

  it('time up while a client has not said what it is: the stop waits; a probe lets it stop, a session holds it', () => {
    const first = hostLife();
    first.join(1);
    first.advance(IDLE_MS * 3);
    expect(first.actor.getSnapshot().value).toEqual({ serving: 'due' });
    first.actor.send({ type: 'CLIENT_DECIDED', id: 1, probe: true });
    expect(first.closing()).toBe(true);

    const second = hostLife();
    // Not even through its hello yet.
    second.actor.send({ type: 'CLIENT_JOINED', id: 1, line: 'line 1' });
    second.advance(IDLE_MS);
    expect(second.actor.getSnapshot().value).toEqual({ serving: 'due' });
    second.actor.send({ type: 'CLIENT_PROVEN', id: 1 });
    second.actor.send({ type: 'CLIENT_DECIDED', id: 1, probe: false });
    expect(second.actor.getSnapshot().value).toEqual({ serving: 'held' });
    second.advance(IDLE_MS * 10);
    expect(second.closing()).toBe(false);
  });

  it('a newcomer leaving without a word restarts the idle time', () => {
    const { advance, join, leave, closing } = hostLife();
    advance(IDLE_MS - 1);
    join(1);
    leave(1);
    advance(IDLE_MS - 1);
    expect(closing()).toBe(false);
    advance(1);
    expect(closing()).toBe(true);
  });

  it('the stop time is read from the chart: now + idle time while it runs, none while a session is attached', () => {
    const { actor, advance, session, leave, probe } = hostLife();
    expect(hostStopsAt(actor.getSnapshot())).toBe(1_000_000 + IDLE_MS);
    session(1);
    expect(hostStopsAt(actor.getSnapshot())).toBeUndefined();
    advance(5_000);
    leave(1);
    expect(hostStopsAt(actor.getSnapshot())).toBe(1_005_000 + IDLE_MS);
    probe(2);
    advance(1_000);
    expect(hostStopsAt(actor.getSnapshot())).toBe(1_005_000 + IDLE_MS);
  });

  it("the clients are the chart's: each with its line and stage, gone when its line closes", () => {
    const { actor, join, session, probe, leave } = hostLife();
    actor.send({ type: 'CLIENT_JOINED', id: 1, line: 'line 1' });
    join(2);
    session(3);
    probe(4);
    const stages = () =>
      Object.fromEntries(Object.entries(actor.getSnapshot().context.clients).map(([id, c]) => [id, c.stage]));
    expect(stages()).toEqual({ 1: 'greeting', 2: 'newcomer', 3: 'session', 4: 'probe' });
    expect(provenClients(actor.getSnapshot().context).map(([id]) => id)).toEqual([2, 3, 4]);
    expect(actor.getSnapshot().context.clients['3']!.line).toBe('line 3');
    // A stage moves forward only: a second word does not make a session a probe.
    actor.send({ type: 'CLIENT_DECIDED', id: 3, probe: true });
    leave(2);
    expect(stages()).toEqual({ 1: 'greeting', 3: 'session', 4: 'probe' });
  });

  it('CLOSE stops it at once, whoever is on the line; nothing holds or restarts it then', async () => {
    const { actor, seen, session, closing, finish } = hostLife();
    session(1);
    actor.send({ type: 'CLOSE' });
    expect(closing()).toBe(true);
    actor.send({ type: 'CLIENT_LEFT', id: 1 });
    session(2);
    expect(closing()).toBe(true);
    expect(seen).toEqual(['shut down']);
    finish();
    await waitFor(actor, (s) => s.status === 'done');
  });
});
