// The session's one sign-in entry point (/mcp-auth, the CLI, autoAuth) over the real server logic: a
// server waiting in needs-auth signs in as its own state, so callers that ask at once share one
// sign-in and its outcome; a server that does not need auth is signed in beside its actor. The auth
// port's sign-in is a fake the test settles (given through the machine's `signIn` actor).

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, SimulatedClock, waitFor } from 'xstate';
import { signInAndConnect, signInLogic } from '../../src/actors/sign-in.ts';
import type { SignInIo, SignInResult } from '../../src/auth/port.ts';
import type { ServerDefinition } from '../../src/config/types.ts';
import { SecretValues } from '../../src/redact/index.ts';
import { definition, FakeConnection, logicWithJitter, scriptedConnector } from './fakes.ts';

afterEach(() => {
  vi.useRealTimers();
});

function start() {
  vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
  const asked: Array<{ io: SignInIo; finish(result: SignInResult): void }> = [];
  const auth = {
    signIn: (_def: ServerDefinition, io: SignInIo) =>
      new Promise<SignInResult>((finish) => {
        asked.push({ io, finish });
      }),
  };
  const def = definition({
    name: 'linear',
    transport: 'http',
    url: 'https://mcp.example.com/mcp',
    auth: 'oauth',
  });
  const { connector, attempts } = scriptedConnector();
  const actor = createActor(logicWithJitter(1).provide({ actors: { signIn: signInLogic(auth) } }), {
    clock: new SimulatedClock(),
    input: { definition: def, generation: 1, connector },
  }).start();
  return { actor, attempts, asked, auth, def };
}

const io = (shown: string[]): SignInIo => ({ showUrl: (url) => shown.push(url) });

describe('signInAndConnect', () => {
  it('two callers of a server waiting in needs-auth share one sign-in, shown to the first', async () => {
    const h = start();
    h.actor.send({ type: 'CONNECT' });
    h.attempts.at(-1)!.fail('auth', 'needs authentication (HTTP 401): run /mcp-auth linear');
    await waitFor(h.actor, (s) => s.hasTag('needsSignIn'));

    const first: string[] = [];
    const second: string[] = [];
    const one = signInAndConnect(h.auth, h.def, h.actor, io(first), new SecretValues());
    const two = signInAndConnect(h.auth, h.def, h.actor, io(second), new SecretValues());
    expect(h.asked).toHaveLength(1);
    h.asked[0]!.io.showUrl('https://auth.example.com/authorize?x', false);
    expect(first).toEqual(['https://auth.example.com/authorize?x']);
    expect(second).toEqual([]);

    h.asked[0]!.finish({ ok: true, message: 'linear: signed in.' });
    await waitFor(h.actor, (s) => s.hasTag('starting'));
    h.attempts.at(-1)!.succeed(new FakeConnection());
    const [a, b] = await Promise.all([one, two]);
    for (const result of [a, b]) {
      expect(result.ok).toBe(true);
      expect(result.message).toMatch(/^linear: signed in\.\nlinear: connected/);
    }
    expect(h.asked).toHaveLength(1);
  });

  it('a shared sign-in that fails fails for everyone who waited; the next ask starts a new one', async () => {
    const h = start();
    h.actor.send({ type: 'CONNECT' });
    h.attempts.at(-1)!.fail('auth');
    await waitFor(h.actor, (s) => s.hasTag('needsSignIn'));
    const one = signInAndConnect(h.auth, h.def, h.actor, io([]), new SecretValues());
    const two = signInAndConnect(h.auth, h.def, h.actor, io([]), new SecretValues());
    h.asked[0]!.finish({ ok: false, message: 'linear: the browser did not come back within 5 min.' });
    expect(await Promise.all([one, two])).toEqual([
      { ok: false, message: 'linear: the browser did not come back within 5 min.' },
      { ok: false, message: 'linear: the browser did not come back within 5 min.' },
    ]);
    void signInAndConnect(h.auth, h.def, h.actor, io([]), new SecretValues());
    expect(h.asked).toHaveLength(2);
  });

  it('a caller that gives up stops waiting; the sign-in goes on for the others', async () => {
    const h = start();
    h.actor.send({ type: 'CONNECT' });
    h.attempts.at(-1)!.fail('auth');
    await waitFor(h.actor, (s) => s.hasTag('needsSignIn'));
    const first = signInAndConnect(h.auth, h.def, h.actor, io([]), new SecretValues());
    const stop = new AbortController();
    const impatient = signInAndConnect(
      h.auth,
      h.def,
      h.actor,
      { ...io([]), signal: stop.signal },
      new SecretValues(),
    );
    stop.abort();
    expect(await impatient).toEqual({ ok: false, message: 'linear: the sign-in was cancelled.' });
    expect(h.actor.getSnapshot().hasTag('signingIn')).toBe(true);
    h.asked[0]!.finish({ ok: true, message: 'linear: signed in.' });
    await waitFor(h.actor, (s) => s.hasTag('starting'));
    h.attempts.at(-1)!.succeed(new FakeConnection());
    expect((await first).ok).toBe(true);
  });

  it('a server that does not need auth is signed in beside its actor, which keeps its state', async () => {
    const h = start();
    const result = signInAndConnect(h.auth, h.def, h.actor, io([]), new SecretValues());
    expect(h.asked).toHaveLength(1);
    expect(h.actor.getSnapshot().hasTag('resting')).toBe(true);
    h.asked[0]!.finish({ ok: true, message: 'linear: signed in.' });
    expect(await result).toMatchObject({
      ok: true,
      message: expect.stringMatching(/^linear: signed in\.\nlinear: not started/),
    });
    expect(h.attempts).toHaveLength(0);
  });
});
