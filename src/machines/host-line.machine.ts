// One client's line to the shared host, from the host's side: greeting.{hello, proving} → newcomer
// (→ standby) → session | probe, or dropped.
//
// - greeting.hello: nothing is read from the line but a hello of this host's protocol and build.
// - greeting.proving: the welcome (with the host's proof and nonce, `challenge`) was sent; the session's
//   proof is awaited.
// - dropped: hello and proof were not both in after `greetingDeadline` (a session gives up on its side
//   well before): the host closes the line (`drop`), so a line that never proves itself cannot hold
//   back the host's stop.
// - newcomer: proven; its first message says what it is: `status` makes it a probe (`pi-mcp-actors
//   host`, a panel asking which copies are warm), anything else a session.
// - standby: a newcomer silent for `newcomerPatience`: a session's line ready ahead of its first use
//   (src/adapters/host/line-ahead.ts). It no longer holds back the host's stop; its first message still
//   says what it is.
//
// The host checks the hello and the proof (keys, nonces: src/host/host-server.ts), tells the chart
// the outcome and provides `drop`. It is a child of the host's chart (./host-process.machine.ts, id `line:<id>`), which it
// tells each stage it reaches (`CLIENT_STAGE`), and which stops it when the line closes.

import { type AnyActorRef, assign, sendTo, setup } from 'xstate';

/** How long the host waits for a line's hello and proof (a session gives up after 4 s on its side). */
export const LINE_GREETING_DEADLINE_MS = 10_000;

/** How long a proven line that has said nothing holds back the host's stop (then it stands by). */
export const NEWCOMER_PATIENCE_MS = 10_000;

export type LineStage = 'greeting' | 'newcomer' | 'standby' | 'session' | 'probe';

export interface HostLineInput {
  id: number;
  /** The host's line (its socket): opaque to the chart. */
  line: unknown;
  /** The host's chart, told each stage. */
  parentRef: AnyActorRef;
}

export interface HostLineContext extends HostLineInput {
  /** What the hello said of the client. */
  pid: number;
  label: string;
  /** The nonces of the welcome sent (the session's and the host's), until the proof is in. */
  challenge?: { session: string; host: string };
}

export type HostLineEvent =
  /** A hello of this host's protocol and build was answered with a welcome. */
  | { type: 'WELCOMED'; pid: number; label: string; challenge: { session: string; host: string } }
  /** The session's proof matched. */
  | { type: 'PROVEN' }
  /** Its first message after the proof (`probe`: it was `status`). */
  | { type: 'SAID'; probe: boolean };

/** The stage a line's snapshot is at. */
export function lineStage(snapshot: { hasTag(tag: string): boolean }): LineStage {
  if (snapshot.hasTag('session')) return 'session';
  if (snapshot.hasTag('probe')) return 'probe';
  if (snapshot.hasTag('standby')) return 'standby';
  return snapshot.hasTag('proven') ? 'newcomer' : 'greeting';
}

export const hostLineMachine = setup({
  types: {} as { input: HostLineInput; context: HostLineContext; events: HostLineEvent },
  actions: {
    /** Close the line. */
    drop: () => {},
    report: sendTo(
      ({ context }) => context.parentRef,
      ({ context }, params: { stage: LineStage }) => ({
        type: 'CLIENT_STAGE' as const,
        id: context.id,
        stage: params.stage,
      }),
    ),
    welcomed: assign(({ event }) =>
      event.type === 'WELCOMED' ? { pid: event.pid, label: event.label, challenge: event.challenge } : {},
    ),
    proven: assign({ challenge: undefined }),
  },
  guards: {
    saysStatus: ({ event }) => event.type === 'SAID' && event.probe,
  },
  delays: { greetingDeadline: LINE_GREETING_DEADLINE_MS, newcomerPatience: NEWCOMER_PATIENCE_MS },
}).createMachine({
  id: 'hostLine',
  initial: 'greeting',
  context: ({ input }) => ({ ...input, pid: 0, label: '' }),
  states: {
    greeting: {
      initial: 'hello',
      after: { greetingDeadline: 'dropped' },
      states: {
        hello: { on: { WELCOMED: { target: 'proving', actions: 'welcomed' } } },
        proving: { on: { PROVEN: { target: '#hostLine.newcomer', actions: 'proven' } } },
      },
    },
    newcomer: {
      tags: ['proven'],
      entry: { type: 'report', params: { stage: 'newcomer' } },
      after: { newcomerPatience: 'standby' },
      on: {
        SAID: [{ guard: 'saysStatus', target: 'probe' }, { target: 'session' }],
      },
    },
    standby: {
      description: 'proven and silent: ready ahead of its first use; it does not hold back the stop',
      tags: ['proven', 'standby'],
      entry: { type: 'report', params: { stage: 'standby' } },
      on: {
        SAID: [{ guard: 'saysStatus', target: 'probe' }, { target: 'session' }],
      },
    },
    session: {
      tags: ['proven', 'session'],
      entry: { type: 'report', params: { stage: 'session' } },
    },
    probe: {
      tags: ['proven', 'probe'],
      entry: { type: 'report', params: { stage: 'probe' } },
    },
    dropped: { type: 'final', entry: 'drop' },
  },
});
