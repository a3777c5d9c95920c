// Signing in is a state of the server (needsAuth.signingIn): the named `signIn` actor (a fake the test
// settles here) runs once however many ask, its outcome stays in the snapshot for everyone who waited,
// and leaving needs-auth another way aborts it. Also: the tags code outside the machine decides by.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock, waitFor } from 'xstate';
import type { SignInIo, SignInResult } from '../../src/auth/port.ts';
import { serverStateOf } from '../../src/machines/server.machine.ts';
import type { SignInInput, WatchTokensInput } from '../../src/machines/server-types.ts';
import type { ServerTag } from '../../src/ports/server-state.ts';
import { serverErrorText } from '../../src/server-error-text.ts';
import { definition, FakeConnection, logicWithJitter, scriptedConnector } from './fakes.ts';

afterEach(() => {
  vi.useRealTimers();
});

interface SignInRun {
  input: SignInInput;
  signal: AbortSignal;
  finish(result: SignInResult): void;
  fail(error: unknown): void;
}

function start(lifecycle: 'lazy' | 'keep-alive' = 'lazy') {
  vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
  const signIns: SignInRun[] = [];
  const watchers: Array<{ signIn: () => void }> = [];
  const signIn = fromPromise<SignInResult, SignInInput>(
    ({ input, signal }) =>
      new Promise<SignInResult>((resolve, reject) => {
        signIns.push({ input, signal, finish: resolve, fail: reject });
      }),
  );
  const watchTokens = fromCallback<{ type: 'AUTHENTICATED' }, WatchTokensInput>(({ sendBack }) => {
    watchers.push({ signIn: () => sendBack({ type: 'AUTHENTICATED' }) });
    return () => {};
  });
  const { connector, attempts } = scriptedConnector();
  const clock = new SimulatedClock();
  const actor = createActor(logicWithJitter(1).provide({ actors: { signIn, watchTokens } }), {
    clock,
    input: {
      definition: definition({
        name: 'linear',
        transport: 'http',
        url: 'https://mcp.example.com/mcp',
        auth: 'oauth',
        lifecycle,
      }),
      generation: 1,
      connector,
    },
  }).start();
  return { actor, clock, attempts, signIns, watchers };
}

type Harness = ReturnType<typeof start>;

async function needingAuth(h: Harness): Promise<void> {
  h.actor.send({ type: 'CONNECT' });
  h.attempts.at(-1)!.fail('auth', 'needs authentication (HTTP 401): run /mcp-auth linear');
  await waitFor(h.actor, (s) => s.hasTag('needsSignIn'));
}

const io = (label: string): SignInIo => ({ showUrl: () => label });
/** Lets a settled fake promise reach the machine. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('needsAuth.signingIn', () => {
  it('SIGN_IN runs the sign-in with the server and the asker’s io; success connects', async () => {
    const h = start();
    await needingAuth(h);
    const asked = io('first');
    h.actor.send({ type: 'SIGN_IN', io: asked });
    expect(h.actor.getSnapshot().matches({ needsAuth: 'signingIn' })).toBe(true);
    expect(h.signIns).toHaveLength(1);
    expect(h.signIns[0]!.input.definition.name).toBe('linear');
    expect(h.signIns[0]!.input.io).toBe(asked);

    h.signIns[0]!.finish({ ok: true, message: 'linear: signed in.' });
    await waitFor(h.actor, (s) => s.hasTag('starting'));
    expect(h.actor.getSnapshot().context.lastSignIn).toEqual({ ok: true, message: 'linear: signed in.' });
    expect(h.attempts).toHaveLength(2);
    h.attempts.at(-1)!.succeed(new FakeConnection());
    await waitFor(h.actor, (s) => s.hasTag('usable'));
  });

  it('a second SIGN_IN while one runs starts no second sign-in', async () => {
    const h = start();
    await needingAuth(h);
    h.actor.send({ type: 'SIGN_IN', io: io('first') });
    h.actor.send({ type: 'SIGN_IN', io: io('second') });
    expect(h.signIns).toHaveLength(1);
    expect(h.actor.getSnapshot().hasTag('signingIn')).toBe(true);
  });

  it('a failed sign-in waits in needs-auth again with its reason; nothing connects', async () => {
    const h = start();
    await needingAuth(h);
    h.actor.send({ type: 'SIGN_IN', io: io('first') });
    h.signIns[0]!.finish({ ok: false, message: 'linear: the sign-in timed out.' });
    await waitFor(h.actor, (s) => !s.hasTag('signingIn'));
    const after = h.actor.getSnapshot();
    expect(after.matches({ needsAuth: 'waiting' })).toBe(true);
    expect(after.context.lastSignIn).toEqual({ ok: false, message: 'linear: the sign-in timed out.' });
    expect(h.attempts).toHaveLength(1);
    // The needs-auth error callers get still names the connect's reason, not the sign-in's.
    expect(serverErrorText(after.context.lastError)).toContain('HTTP 401');

    // The next SIGN_IN starts a fresh one, and forgets the last outcome while it runs.
    h.actor.send({ type: 'SIGN_IN', io: io('again') });
    expect(h.signIns).toHaveLength(2);
    expect(h.actor.getSnapshot().context.lastSignIn).toBeUndefined();
  });

  it('a sign-in that throws is an outcome too', async () => {
    const h = start();
    await needingAuth(h);
    h.actor.send({ type: 'SIGN_IN', io: io('first') });
    h.signIns[0]!.fail(new Error('loopback port in use'));
    await waitFor(h.actor, (s) => !s.hasTag('signingIn'));
    expect(h.actor.getSnapshot().context.lastSignIn).toEqual({
      ok: false,
      message: 'linear: sign-in failed: loopback port in use',
    });
  });

  it('tokens from elsewhere meanwhile connect at once and abort this sign-in', async () => {
    const h = start();
    await needingAuth(h);
    h.actor.send({ type: 'SIGN_IN', io: io('first') });
    h.watchers.at(-1)!.signIn();
    expect(serverStateOf(h.actor.getSnapshot())).toBe('connecting');
    expect(h.signIns[0]!.signal.aborted).toBe(true);
    expect(h.actor.getSnapshot().context.lastSignIn).toEqual({ ok: true, message: 'linear: signed in.' });
    // Its late answer changes nothing.
    h.signIns[0]!.finish({ ok: false, message: 'aborted' });
    await settle();
    expect(h.actor.getSnapshot().context.lastSignIn?.ok).toBe(true);
  });

  it('CLOSE aborts a running sign-in; SIGN_IN outside needs-auth is not handled', async () => {
    const h = start();
    expect(h.actor.getSnapshot().can({ type: 'SIGN_IN', io: io('early') })).toBe(false);
    await needingAuth(h);
    h.actor.send({ type: 'SIGN_IN', io: io('first') });
    h.actor.send({ type: 'CLOSE' });
    expect(serverStateOf(h.actor.getSnapshot())).toBe('closed');
    expect(h.signIns[0]!.signal.aborted).toBe(true);
    h.actor.send({ type: 'SIGN_IN', io: io('closed') });
    expect(h.signIns).toHaveLength(1);
  });
});

describe('tags: what code outside the machine reads', () => {
  const tags = (h: Harness) => [...h.actor.getSnapshot().tags].sort() as ServerTag[];

  it('every state says what a caller may do with it', async () => {
    const h = start('keep-alive');
    expect(tags(h)).toEqual(['resting']);
    h.actor.send({ type: 'CONNECT' });
    expect(tags(h)).toEqual(['starting']);
    h.attempts.at(-1)!.fail('network', 'refused');
    await waitFor(h.actor, (s) => s.hasTag('failed'));
    expect(tags(h)).toEqual(['failed', 'failsFast']);
    h.actor.send({ type: 'RETRY' });
    h.attempts.at(-1)!.fail('auth');
    await waitFor(h.actor, (s) => s.hasTag('needsSignIn'));
    expect(tags(h)).toEqual(['failsFast', 'needsSignIn']);
    h.actor.send({ type: 'SIGN_IN', io: io('first') });
    expect(tags(h)).toEqual(['failsFast', 'needsSignIn', 'signingIn']);
    h.signIns[0]!.finish({ ok: true, message: 'linear: signed in.' });
    await waitFor(h.actor, (s) => s.hasTag('starting'));
    h.attempts.at(-1)!.options.onListing?.();
    expect(tags(h)).toEqual(['listing', 'starting']);
    h.attempts.at(-1)!.succeed(new FakeConnection());
    await waitFor(h.actor, (s) => s.hasTag('usable'));
    expect(tags(h)).toEqual(['usable']);
    h.actor.send({ type: 'CLOSE' });
    expect(tags(h)).toEqual(['closing']);
    await waitFor(h.actor, (s) => !s.hasTag('closing'));
    expect(tags(h)).toEqual(['resting']);
  });
});

describe('health and usage are behaviours a server has or has not', () => {
  const regions = (h: Harness) =>
    (h.actor.getSnapshot().value as { connected: { usage: string; health: string } }).connected;

  it.each([
    ['lazy', { usage: 'idle', health: 'off' }],
    ['keep-alive', { usage: 'open', health: 'waiting' }],
  ] as const)('a %s server, once connected: %o', async (lifecycle, expected) => {
    const h = start(lifecycle);
    h.actor.send({ type: 'CONNECT' });
    h.attempts.at(-1)!.succeed(new FakeConnection());
    await waitFor(h.actor, (s) => s.hasTag('usable'));
    expect(regions(h)).toMatchObject(expected);
  });
});
