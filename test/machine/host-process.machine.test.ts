// The host process's own chart on XState's SimulatedClock: it stops exactly its idle time after its
// last session left, never while one is on the line; a probe neither holds it nor restarts the time;
// a client that has not said what it is holds back the stop; its status's stop time is the chart's.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, SimulatedClock, waitFor } from 'xstate';
import {
  hostLineMachine,
  LINE_GREETING_DEADLINE_MS,
  lineStage,
  NEWCOMER_PATIENCE_MS,
} from '../../src/machines/host-line.machine.ts';
import {
  hostProcessMachine,
  hostStopsAt,
  lineId,
  provenClients,
} from '../../src/machines/host-process.machine.ts';

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
        line: hostLineMachine.provide({
          actions: { drop: ({ context }) => void seen.push(`drop ${context.id}`) },
        }),
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
  /** A line's child, while its line is open. */
  const line = (id: number) => actor.getSnapshot().context.clients[lineId(id)]!;
  const accept = (id: number) => actor.send({ type: 'CLIENT_JOINED', id, line: `line ${id}` });
  const prove = (id: number) => {
    line(id).send({
      type: 'WELCOMED',
      pid: 100 + id,
      label: `client ${id}`,
      challenge: { session: 's', host: 'h' },
    });
    line(id).send({ type: 'PROVEN' });
  };
  const join = (id: number) => {
    accept(id);
    prove(id);
  };
  const say = (id: number, probe: boolean) => line(id).send({ type: 'SAID', probe });
  const session = (id: number) => {
    join(id);
    say(id, false);
  };
  const probe = (id: number) => {
    join(id);
    say(id, true);
  };
  const leave = (id: number) => actor.send({ type: 'CLIENT_LEFT', id });
  const closing = () => actor.getSnapshot().matches('closing');
  return {
    actor,
    seen,
    advance,
    line,
    accept,
    prove,
    join,
    say,
    session,
    probe,
    leave,
    closing,
    finish: () => finish(),
  };
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
    first.advance(IDLE_MS - 1_000);
    first.join(1);
    first.advance(NEWCOMER_PATIENCE_MS - 1);
    expect(first.actor.getSnapshot().value).toEqual({ serving: 'due' });
    first.say(1, true);
    expect(first.closing()).toBe(true);

    const second = hostLife();
    // Not even through its hello yet.
    second.advance(IDLE_MS - 1_000);
    second.accept(1);
    second.advance(1_000);
    expect(second.actor.getSnapshot().value).toEqual({ serving: 'due' });
    second.prove(1);
    expect(second.actor.getSnapshot().value).toEqual({ serving: 'due' });
    second.say(1, false);
    expect(second.actor.getSnapshot().value).toEqual({ serving: 'held' });
    second.advance(IDLE_MS * 10);
    expect(second.closing()).toBe(false);
  });

  it('a line that never proves itself is dropped after its greeting deadline; it holds back the stop until then, and its leaving restarts nothing', () => {
    const { actor, seen, advance, accept, line, leave, closing } = hostLife();
    // While the idle time runs: dropped, and the host still stops on time.
    accept(1);
    line(1).send({ type: 'WELCOMED', pid: 1, label: 'stuck', challenge: { session: 's', host: 'h' } });
    advance(LINE_GREETING_DEADLINE_MS - 1);
    expect(seen).toEqual([]);
    advance(1);
    expect(seen).toEqual(['drop 1']);
    expect(line(1).getSnapshot().value).toBe('dropped');
    leave(1);
    // Once the time is up: it waits for the line, until its deadline drops it.
    advance(IDLE_MS - LINE_GREETING_DEADLINE_MS - 5_000);
    accept(2);
    advance(5_000);
    expect(actor.getSnapshot().value).toEqual({ serving: 'due' });
    advance(LINE_GREETING_DEADLINE_MS - 5_000);
    expect(seen).toEqual(['drop 1', 'drop 2']);
    expect(closing()).toBe(false);
    leave(2);
    expect(closing()).toBe(true);
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

  it('a newcomer silent past its patience stands by: it no longer holds back the stop, its leaving restarts nothing, its first word still counts', () => {
    const first = hostLife();
    first.join(1);
    first.advance(NEWCOMER_PATIENCE_MS - 1);
    expect(lineStage(first.line(1).getSnapshot())).toBe('newcomer');
    first.advance(1);
    expect(lineStage(first.line(1).getSnapshot())).toBe('standby');
    // Its time is up while it stands by: the host stops, on time.
    first.advance(IDLE_MS - NEWCOMER_PATIENCE_MS - 1);
    expect(first.closing()).toBe(false);
    first.advance(1);
    expect(first.closing()).toBe(true);

    const second = hostLife();
    second.advance(5_000);
    second.join(1);
    second.advance(NEWCOMER_PATIENCE_MS);
    second.leave(1);
    // Leaving from standby: the time runs on from the start, not anew.
    second.advance(IDLE_MS - 5_000 - NEWCOMER_PATIENCE_MS);
    expect(second.closing()).toBe(true);

    const third = hostLife();
    third.join(1);
    third.advance(IDLE_MS - 1);
    // A session greeted ahead uses its line: it says it is a session and holds the host.
    third.say(1, false);
    expect(lineStage(third.line(1).getSnapshot())).toBe('session');
    expect(third.actor.getSnapshot().value).toEqual({ serving: 'held' });
    third.advance(IDLE_MS * 5);
    expect(third.closing()).toBe(false);
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

  it('each line is a child: greeting → newcomer → session | probe, with what its hello said; stopped when it closes', () => {
    const { actor, accept, prove, join, say, session, probe, line, leave } = hostLife();
    accept(1);
    join(2);
    session(3);
    probe(4);
    const stages = () =>
      Object.fromEntries(
        Object.entries(actor.getSnapshot().context.clients).map(([id, ref]) => [
          id,
          lineStage(ref.getSnapshot()),
        ]),
      );
    expect(stages()).toEqual({
      [lineId(1)]: 'greeting',
      [lineId(2)]: 'newcomer',
      [lineId(3)]: 'session',
      [lineId(4)]: 'probe',
    });
    expect(Object.keys(actor.getSnapshot().children).sort()).toEqual([1, 2, 3, 4].map(lineId));
    expect(line(1).getSnapshot().value).toEqual({ greeting: 'hello' });
    expect(provenClients(actor.getSnapshot().context).map(({ ref }) => ref.getSnapshot().context.id)).toEqual(
      [2, 3, 4],
    );
    expect(line(3).getSnapshot().context).toMatchObject({ line: 'line 3', pid: 103, label: 'client 3' });
    // The challenge is kept only until the proof is in.
    expect(line(3).getSnapshot().context.challenge).toBeUndefined();
    // A stage moves forward only: a second word does not make a session a probe.
    say(3, true);
    prove(1);
    leave(2);
    expect(stages()).toEqual({ [lineId(1)]: 'newcomer', [lineId(3)]: 'session', [lineId(4)]: 'probe' });
    expect(actor.getSnapshot().children[lineId(2)]).toBeUndefined();
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
