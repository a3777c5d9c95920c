// needs-auth watches the sign-in store (the named `watchTokens` actor, a tiny fake here): a sign-in
// anywhere moves the server on to connecting by itself, and leaving needs-auth stops the watcher.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, SimulatedClock, waitFor } from 'xstate';
import { serverStateOf } from '../../src/machines/server.machine.ts';
import type { WatchTokensInput } from '../../src/machines/server-types.ts';
import { serverErrorText } from '../../src/server-error-text.ts';
import { definition, logicWithJitter, scriptedConnector } from './fakes.ts';

afterEach(() => {
  vi.useRealTimers();
});

function start() {
  vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
  const watchers: Array<{ input: WatchTokensInput; signIn: () => void; stopped: boolean }> = [];
  const watchTokens = fromCallback<{ type: 'AUTHENTICATED' }, WatchTokensInput>(({ input, sendBack }) => {
    const watcher = { input, signIn: () => sendBack({ type: 'AUTHENTICATED' }), stopped: false };
    watchers.push(watcher);
    return () => {
      watcher.stopped = true;
    };
  });
  const { connector, attempts } = scriptedConnector();
  const clock = new SimulatedClock();
  const logic = logicWithJitter(1).provide({ actors: { watchTokens } });
  const actor = createActor(logic, {
    clock,
    input: {
      definition: definition({
        name: 'linear',
        transport: 'http',
        url: 'https://mcp.example.com/mcp',
        auth: 'oauth',
      }),
      generation: 1,
      connector,
    },
  }).start();
  return { actor, clock, attempts, watchers };
}

describe('needsAuth watches the sign-in store', () => {
  it('starts one watcher for the server on entering needs-auth', async () => {
    const h = start();
    h.actor.send({ type: 'CONNECT' });
    h.attempts.at(-1)!.fail('auth', 'needs authentication (HTTP 401): run /mcp-auth linear');
    await waitFor(h.actor, (s) => s.matches('needsAuth'));
    expect(h.watchers).toHaveLength(1);
    expect(h.watchers[0]!.input.definition).toMatchObject({
      name: 'linear',
      url: 'https://mcp.example.com/mcp',
    });
    expect(h.watchers[0]!.stopped).toBe(false);
  });

  it('a sign-in moves it to connecting by itself, stops the watcher, and connects', async () => {
    const h = start();
    h.actor.send({ type: 'CONNECT' });
    h.attempts.at(-1)!.fail('auth');
    await waitFor(h.actor, (s) => s.matches('needsAuth'));
    h.watchers[0]!.signIn();
    expect(serverStateOf(h.actor.getSnapshot())).toBe('connecting');
    expect(h.watchers[0]!.stopped).toBe(true);
    expect(h.attempts).toHaveLength(2);
    h.attempts.at(-1)!.succeed();
    await waitFor(h.actor, (s) => s.matches('connected'));
  });

  it('stays in needs-auth while nobody signs in, however much time passes (no backoff, no retry)', async () => {
    const h = start();
    h.actor.send({ type: 'CONNECT' });
    h.attempts.at(-1)!.fail('auth');
    await waitFor(h.actor, (s) => s.matches('needsAuth'));
    h.clock.increment(24 * 60 * 60_000);
    expect(serverStateOf(h.actor.getSnapshot())).toBe('needsAuth');
    expect(h.attempts).toHaveLength(1);
  });

  it('a sign-in that fails again comes back to needs-auth with a fresh watcher', async () => {
    const h = start();
    h.actor.send({ type: 'CONNECT' });
    h.attempts.at(-1)!.fail('auth');
    await waitFor(h.actor, (s) => s.matches('needsAuth'));
    h.watchers[0]!.signIn();
    h.attempts.at(-1)!.fail('auth', 'the server needs scope "admin"');
    await waitFor(
      h.actor,
      (s) => s.matches('needsAuth') && serverErrorText(s.context.lastError).includes('admin') === true,
    );
    expect(h.watchers).toHaveLength(2);
    expect(h.watchers[1]!.stopped).toBe(false);
  });

  it('CLOSE stops the watcher; a late AUTHENTICATED from it changes nothing', async () => {
    const h = start();
    h.actor.send({ type: 'CONNECT' });
    h.attempts.at(-1)!.fail('auth');
    await waitFor(h.actor, (s) => s.matches('needsAuth'));
    h.actor.send({ type: 'CLOSE' });
    expect(h.watchers[0]!.stopped).toBe(true);
    h.watchers[0]!.signIn();
    expect(serverStateOf(h.actor.getSnapshot())).toBe('closed');
  });
});
