// A session's own server actor mirrors the host's instance of its server: when the host's copy leaves
// `connected` the session's connection ends saying where the copy went, and the session's actor goes
// there too (backoff until the host's next try, connecting again after a restart), so /mcp and
// `pi-mcp-actors status` read the session's own snapshot. A failed attach carries the host's next try.
// And a session can restart the host's copy (`/mcp reconnect`): the host holds back while other
// sessions have calls running on it (it says how many) until the restart is forced; the other
// sessions' calls in flight are then told who cut them off.

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createActor, fromCallback, waitFor } from 'xstate';
import { serverLogic } from '../../../src/actors/server-actor.ts';
import { describeServers } from '../../../src/commands/server-status.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import type { Connector } from '../../../src/machines/server-types.ts';
import type { ConnectionEvent } from '../../../src/ports/connection.ts';
import type { InstanceState } from '../../../src/ports/host.ts';
import type { ConnectError } from '../../../src/ports/mcp.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { ensureConnected } from '../../../src/session/ensure-connected.ts';
import { type OAuthFixture, startOAuthFixture } from '../../fixtures/oauth/start.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { definition as serverDefinition } from '../../support/config.ts';
import { eventually, HostWorld, type Session } from './harness.ts';

let world: HostWorld;

beforeEach(() => {
  world = new HostWorld();
});

afterEach(async () => {
  await world.dispose();
});

/** A session's connector as its runtime has it (connections attach to the host); failed connects are kept. */
function connectorOf(session: Session, failures: unknown[] = []): Connector {
  return (definition, options) =>
    session
      .connect(definition, options.host, undefined, {
        signal: options.signal,
        ...(options.onHostState ? { onHostState: options.onHostState } : {}),
      })
      .catch((error) => {
        failures.push(error);
        throw error;
      });
}

/** A session's server actor, connected through the host. */
async function sessionActor(session: Session, definition: ServerDefinition, failures?: unknown[]) {
  const actor = createActor(serverLogic, {
    input: { definition, generation: 0, connector: connectorOf(session, failures) },
  });
  actor.start();
  actors.push(actor);
  actor.send({ type: 'CONNECT' });
  await waitFor(actor, (s) => s.hasTag('usable'), { timeout: 20_000 });
  return actor;
}

const actors: Array<{ stop(): void }> = [];
let oauth: OAuthFixture | undefined;

afterEach(async () => {
  for (const actor of actors.splice(0)) actor.stop();
  await oauth?.stop();
  oauth = undefined;
});

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

it("the host's copy died and retries: the session's actor goes to backoff until the host's next try, with the host's error, then connects again", async () => {
  const failFile = join(world.root, 'fail-start');
  const definition = stdioDefinition(['--fail-start-while', failFile], {
    inheritEnv: false,
    lifecycle: 'keep-alive',
    healthCheckMs: 0,
  });
  const failures: unknown[] = [];
  const actor = await sessionActor(world.session('A'), definition, failures);
  const view = () =>
    describeServers({ [definition.name]: actor }, { secrets: new SecretValues() }).split('\n');
  const hostPid = actor.getSnapshot().context.connection?.sharedHost?.pid;
  expect(hostPid).toBeGreaterThan(0);
  expect(view()[0]).toMatch(new RegExp(`^fixture-stdio: connected, shared \\(host pid ${hostPid}\\) — `));
  const connection = actor.getSnapshot().context.connection!;
  const firstPid = connection.pid!;
  const ends: ConnectionEvent[] = [];
  connection.onEvent((event) => {
    if (event.type === 'closed') ends.push(event);
  });

  // The host's copy dies and cannot start again: the host's actor goes to backoff, and so does the session's.
  let seen: { nextRetryAt?: number; view: string[] } | undefined;
  const inBackoff = waitFor(
    actor,
    (s) => {
      if (!s.matches('backoff')) return false;
      seen = { nextRetryAt: s.context.nextRetryAt, view: view() };
      return true;
    },
    { timeout: 20_000 },
  );
  writeFileSync(failFile, '');
  process.kill(firstPid, 'SIGKILL');
  await inBackoff;
  const [end] = ends;
  expect(end).toMatchObject({
    type: 'closed',
    farEnd: { state: 'backoff', lastError: { kind: 'exited', detail: { cause: 'connectionLost' } } },
  });
  const hostRetryAt = end?.type === 'closed' && end.farEnd?.state === 'backoff' ? end.farEnd.retryAt : 0;
  // The host's next try, not the session's own schedule (a try already due is taken at once).
  expect(Math.abs((seen?.nextRetryAt ?? 0) - hostRetryAt)).toBeLessThan(250);
  const backoff = actor.getSnapshot().context;
  expect(backoff.lastError).toMatchObject({ kind: 'exited', detail: { cause: 'connectionLost' } });
  // Seen from the session's own snapshot: /mcp and `status` say backoff with its next try.
  expect(seen?.view[0]).toMatch(/^fixture-stdio: failed, retrying — keep-alive, stdio/);
  expect(seen?.view.join('\n')).toMatch(/next try in \d+(\.\d+)? (ms|s) \(attempt 1\)/);
  expect(seen?.view.join('\n')).toMatch(/last error.*: connection lost/);

  // Its next try attaches again, waits for the host's copy, which fails again: the failed attach
  // carries the host's next try, and the session's backoff is that one.
  await waitFor(actor, (s) => s.matches('backoff') && s.context.attempt === 2, { timeout: 20_000 });
  const failed = failures.at(-1) as ConnectError;
  expect(failed).toMatchObject({ name: 'ConnectError', kind: 'exited' });
  expect(failed.retryAt).toBeGreaterThan(0);
  expect(Math.abs(actor.getSnapshot().context.nextRetryAt! - failed.retryAt!)).toBeLessThan(250);
  // Meanwhile a call fails fast with the next try (the tool executor's path).
  const answer = await ensureConnected(actor);
  expect(answer).toMatchObject({ ok: false, error: { kind: 'backoff', retryInMs: expect.any(Number) } });
  // The host keeps the failed instance, with nobody attached, for the session's next try (unless that
  // try is already under way: the host's next try may come at any time within its jitter).
  const instances = (await world.status())?.instances;
  expect(instances).toHaveLength(1);
  if (actor.getSnapshot().context.attempt === 2 && actor.getSnapshot().matches('backoff'))
    expect(instances?.[0]).toMatchObject({ attached: 0 });

  // It starts again: the session's next try attaches to the new copy.
  rmSync(failFile);
  await waitFor(actor, (s) => s.hasTag('usable'), { timeout: 20_000 });
  const again = actor.getSnapshot().context.connection!;
  expect(again.pid).not.toBe(firstPid);
  expect(again.pid).toBe((await world.status())?.instances[0]?.pid);
  expect(text(await again.callTool('echo', { text: 'back' }))).toContain('back');
  // Since the copy died: the host's schedule (backoff, connecting) until connected, never closed.
  const trail = actor.getSnapshot().context.trail.map((v) => v.state);
  const since = trail.slice(trail.indexOf('backoff'));
  expect(since.at(-1)).toBe('connected');
  expect(since.slice(0, -1).every((state) => state === 'backoff' || state === 'connecting')).toBe(true);
});

it("a lazy instance whose server died ends the attached sessions' connections (they reconnect on use)", async () => {
  const pushed: Array<InstanceState | undefined> = [];
  const a = await world
    .session('A')
    .connect(stdioDefinition([], { inheritEnv: false }), undefined, undefined, {
      onHostState: (state) => pushed.push(state),
    });
  const events: ConnectionEvent[] = [];
  a.onEvent((event) => events.push(event));
  process.kill(a.pid!, 'SIGKILL');
  await eventually(() => expect(events).toContainEqual(expect.objectContaining({ type: 'closed' })));
  expect(events.find((e) => e.type === 'closed')).not.toHaveProperty('farEnd');
  // The host's last push before the end says where its copy went; the end itself clears it.
  expect(pushed.at(-2)?.state).toBe('closed');
  expect(pushed.at(-1)).toBeUndefined();
});

it("one session restarts the host's copy (held back for the other's call until forced): the other's actor goes to connecting, waits for the fresh copy, and its call in flight says why it failed", async () => {
  const holdFile = join(world.root, 'hold-start');
  const definition = stdioDefinition(['--wait-while', holdFile], { inheritEnv: false, healthCheckMs: 0 });
  const a = await sessionActor(world.session('A'), definition);
  const b = await sessionActor(world.session('B'), definition);
  const firstPid = a.getSnapshot().context.connection!.pid!;
  expect(b.getSnapshot().context.connection!.pid).toBe(firstPid);
  const inFlight = b.getSnapshot().context.connection!.callTool('hang', {}, { timeoutMs: 30_000 });
  await eventually(async () => expect((await world.status())?.instances[0]).toMatchObject({ inFlight: 1 }));

  const restartOfA = (force?: boolean) => a.getSnapshot().context.connection!.sharedHost!.restart!(force);
  // Held back: B's call runs on it; the host says so and restarts nothing.
  expect(await restartOfA()).toEqual({ calls: 1, callers: 1, attached: 1 });
  expect((await world.status())?.instances[0]).toMatchObject({
    state: 'connected',
    pid: firstPid,
    inFlight: 1,
  });

  writeFileSync(holdFile, ''); // the new copy waits at its start until the test lets it go
  const bConnecting = waitFor(b, (s) => s.matches('connecting'), { timeout: 20_000 });
  expect(await restartOfA(true)).toBeUndefined();
  await expect(inFlight).rejects.toThrow(
    'another session restarted "fixture-stdio" (/mcp reconnect) while the call ran',
  );
  await bConnecting;
  await waitFor(a, (s) => s.matches('connecting'), { timeout: 20_000 });
  // A call now waits for the session's connecting, which waits for the fresh copy.
  const waiting = ensureConnected(b);
  rmSync(holdFile);
  const answer = await waiting;
  if (!answer.ok) throw new Error(answer.error.message);
  expect(text(await answer.connection.callTool('echo', { text: 'from B' }))).toContain('from B');
  expect(answer.connection.pid).not.toBe(firstPid);
  // No backoff: connected, connecting again at once, connected.
  expect(
    b
      .getSnapshot()
      .context.trail.map((v) => v.state)
      .slice(-3),
  ).toEqual(['connected', 'connecting', 'connected']);
  await waitFor(a, (s) => s.hasTag('usable'), { timeout: 20_000 });
  expect(text(await a.getSnapshot().context.connection!.callTool('echo', { text: 'from A' }))).toContain(
    'from A',
  );
  expect((await world.status())?.instances).toEqual([
    expect.objectContaining({ state: 'connected', attached: 2, pid: answer.connection.pid }),
  ]);
});

it("the host's copy needs a sign-in: so does the session's actor, and the host keeps the copy for its next try", async () => {
  oauth = await startOAuthFixture();
  const definition = serverDefinition({
    name: 'linear',
    transport: 'http',
    url: oauth.url,
    auth: 'oauth',
    oauth: { grantType: 'authorization_code' },
    lifecycle: 'keep-alive',
  });
  // The session's own sign-in watcher is not under test (it would watch the user's real store).
  const logic = serverLogic.provide({ actors: { watchTokens: fromCallback(() => () => {}) } });
  const actor = createActor(logic, {
    input: { definition, generation: 0, connector: connectorOf(world.session('A')) },
  });
  actor.start();
  actors.push(actor);
  actor.send({ type: 'CONNECT' });
  await waitFor(actor, (s) => s.matches('needsAuth'), { timeout: 20_000 });
  expect(actor.getSnapshot().context.lastError?.kind).toBe('auth');
  expect(await ensureConnected(actor)).toMatchObject({
    ok: false,
    error: { kind: 'needs-auth', message: expect.stringContaining('/mcp-auth linear') },
  });
  expect((await world.status())?.instances).toEqual([
    expect.objectContaining({ server: 'linear', state: 'needsAuth', attached: 0 }),
  ]);
});

it("a crashing shared server: each state the host pushes of its copy reaches the session actor's snapshot as it happens, and its status line with it (nothing polls)", async () => {
  const failFile = join(world.root, 'fail-start');
  const definition = stdioDefinition(['--fail-start-while', failFile], {
    inheritEnv: false,
    lifecycle: 'keep-alive',
    healthCheckMs: 0,
  });
  const actor = await sessionActor(world.session('A'), definition);
  const hostPid = actor.getSnapshot().context.connection!.sharedHost!.pid;
  expect(actor.getSnapshot().context.hostCopy).toMatchObject({ state: 'connected', hostPid });
  // What a panel subscribed to the actor sees: the session's state and the host copy's, per snapshot,
  // and the status line as the snapshot that first says so draws it.
  const seen: string[] = [];
  const lines = new Map<string, string>();
  actor.subscribe((s) => {
    const state = typeof s.value === 'string' ? s.value : Object.keys(s.value)[0];
    const entry = `${state} / host ${s.context.hostCopy?.state ?? '-'}`;
    if (seen.at(-1) === entry) return;
    seen.push(entry);
    if (!lines.has(entry))
      lines.set(
        entry,
        describeServers({ [definition.name]: actor }, { secrets: new SecretValues() }).split('\n')[0]!,
      );
  });
  writeFileSync(failFile, '');
  process.kill(actor.getSnapshot().context.connection!.pid!, 'SIGKILL');
  await waitFor(actor, (s) => s.matches('backoff') && s.context.attempt === 2, { timeout: 20_000 });

  // The host's copy went to backoff while the session's connection still stood: its snapshot said so.
  expect(seen).toContain('connected / host backoff');
  expect(lines.get('connected / host backoff')).toMatch(
    new RegExp(`^fixture-stdio: connected, shared \\(host pid ${hostPid}\\), host: backoff, next try in `),
  );
  // The session's next try attaches and waits for the host's copy: its tries are seen meanwhile.
  const attaching = seen.filter((entry) => /^connecting \/ host (connecting|backoff)$/.test(entry));
  expect(attaching.length).toBeGreaterThan(0);
  expect(lines.get(attaching[0]!)).toMatch(
    new RegExp(`^fixture-stdio: connecting, shared \\(host pid ${hostPid}\\)`),
  );
  // Not attached, nothing is known of the copy: the session's own state says it.
  expect(actor.getSnapshot().context.hostCopy).toBeUndefined();
});
