// The real server actor against faulty stdio fixtures: crash on start, crash mid-call, hang on
// initialize, hang on call, slow start, and CLOSE / stop while connecting. Asserts the states visited,
// what ensureConnected callers get, and that every server process is gone when it should be (/proc).

import { describe, expect, it, vi } from 'vitest';
import { CallError } from '../../../src/adapters/mcp/index.ts';
import { serverErrorText } from '../../../src/server-error-text.ts';
import { ensureConnected } from '../../../src/session/ensure-connected.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { isAlive } from '../../fixtures/servers/spawn.ts';
import {
  callTool,
  logicWithJitter,
  rejectionOf,
  runningStdioServers,
  spawnedServerPid,
  textOf,
  useServerActorHarness,
} from './harness.ts';

const harness = useServerActorHarness();

describe('crash on start', () => {
  it('lazy: backoff with the last error and the time to the next try, fail fast, then closed', async () => {
    // jitter 0.3: the first backoff is 300 ms, the second 600 ms.
    const server = harness.start(stdioDefinition(['--crash-on-start']), { logic: logicWithJitter(0.3) });
    const first = await ensureConnected(server.actor);
    expect(first).toMatchObject({
      ok: false,
      error: {
        kind: 'backoff',
        server: 'fixture-stdio',
        lastError: expect.stringMatching(/"fixture-stdio" exited with code 3 .*during startup/),
        stderrTail: expect.stringContaining('fatal: fixture refuses to start (--crash-on-start)'),
      },
    });
    const error = !first.ok ? first.error : undefined;
    expect(error?.retryInMs).toBeGreaterThan(0);
    expect(error?.retryInMs).toBeLessThanOrEqual(300);
    expect(error?.message).toMatch(
      /^MCP server "fixture-stdio" failed to connect: .*exited with code 3.*\. It can be tried again in 1 s; \/mcp reconnect fixture-stdio tries now\.$/,
    );
    expect(server.states).toEqual(['init', 'connecting', 'backoff']);

    // Callers during the backoff fail fast: no new attempt.
    const second = await ensureConnected(server.actor);
    expect(second).toMatchObject({ ok: false, error: { kind: 'backoff' } });
    expect(server.states).toEqual(['init', 'connecting', 'backoff']);

    // Lazy servers do not retry by themselves: the backoff runs out into closed.
    await server.reach('closed');
    expect(runningStdioServers()).toEqual([]);

    // The next caller tries again, and the backoff grows.
    const third = await ensureConnected(server.actor);
    expect(third).toMatchObject({ ok: false, error: { kind: 'backoff' } });
    expect(!third.ok && third.error.retryInMs).toBeGreaterThan(300);
    expect(server.states).toEqual(['init', 'connecting', 'backoff', 'closed', 'connecting', 'backoff']);
    expect(server.actor.getSnapshot().context.attempt).toBe(2);
    expect(server.told).toEqual(server.states.filter((state) => state !== 'closing'));
  });

  it('keep-alive: retries by itself after each backoff until closed', async () => {
    const server = harness.start(stdioDefinition(['--crash-on-start'], { lifecycle: 'keep-alive' }));
    const first = await ensureConnected(server.actor);
    expect(first).toMatchObject({ ok: false, error: { kind: 'backoff' } });
    expect(!first.ok && first.error.message).toMatch(/The next automatic try is in 1 s/);
    await vi.waitFor(() => expect(server.actor.getSnapshot().context.attempt).toBeGreaterThanOrEqual(3), {
      timeout: 15_000,
    });
    server.actor.send({ type: 'CLOSE' });
    const visited = server.states;
    expect(visited.slice(0, 7)).toEqual([
      'init',
      'connecting',
      'backoff',
      'connecting',
      'backoff',
      'connecting',
      'backoff',
    ]);
    expect(visited.at(-1)).toBe('closed');
    expect(server.actor.getSnapshot().context.lastError?.kind).toBe('exited');
  });
});

describe('crash mid-call', () => {
  it('lazy: the caller gets a closed CallError; the actor leaves connected for closed; next use reconnects', async () => {
    const server = harness.start(stdioDefinition(['--crash-on-call']));
    expect((await ensureConnected(server.actor)).ok).toBe(true);
    const [pid] = server.pids;

    const error = await rejectionOf(callTool(server, 'echo', { text: 'boom' }));
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('closed');
    expect(error.message).toMatch(/exited with code 7/);

    await server.reach('closed');
    expect(server.states).toEqual(['init', 'connecting', 'connected', 'closing', 'closed']);
    const { lastError, inFlight } = server.actor.getSnapshot().context;
    expect(inFlight).toBe(0);
    expect(lastError?.kind).toBe('exited');
    expect(lastError && serverErrorText(lastError)).toMatch(/^connection lost: exited with code 7/);
    expect(server.actor.getSnapshot().context.stderrTail).toContain(
      'fatal: fixture crashed while running echo',
    );
    await vi.waitFor(() => expect(isAlive(pid!)).toBe(false));

    expect((await ensureConnected(server.actor)).ok).toBe(true);
    expect(server.states).toEqual([
      'init',
      'connecting',
      'connected',
      'closing',
      'closed',
      'connecting',
      'connected',
    ]);
    expect(server.pids).toHaveLength(2);
  });

  it('keep-alive: the actor reconnects by itself to a new process', async () => {
    const server = harness.start(stdioDefinition(['--crash-on-call'], { lifecycle: 'keep-alive' }));
    expect((await ensureConnected(server.actor)).ok).toBe(true);
    const [pid] = server.pids;

    const error = await rejectionOf(callTool(server, 'echo', { text: 'boom' }));
    expect(error.kind).toBe('closed');

    await vi.waitFor(
      () =>
        expect(server.states).toEqual([
          'init',
          'connecting',
          'connected',
          'closing',
          'backoff',
          'connecting',
          'connected',
        ]),
      { timeout: 15_000 },
    );
    expect(server.pids).toHaveLength(2);
    expect(isAlive(server.pids[1]!)).toBe(true);
    await vi.waitFor(() => expect(isAlive(pid!)).toBe(false));
    expect(server.actor.getSnapshot().context.attempt).toBe(0);
    // `closing` is passed through, not reported to the parent.
    expect(server.told).toEqual(server.states.filter((state) => state !== 'closing'));
  });
});

describe('hangs and slow starts', () => {
  it('hang on initialize: the startup timeout ends in backoff and the hung process is killed', async () => {
    const server = harness.start(stdioDefinition(['--hang-initialize'], { startupTimeoutMs: 400 }));
    const pending = ensureConnected(server.actor);
    const pid = await spawnedServerPid();
    harness.watchGroup(pid);

    const result = await pending;
    expect(result).toMatchObject({ ok: false, error: { kind: 'backoff' } });
    expect(!result.ok && result.error.lastError).toMatch(/400 ms/);
    expect(server.actor.getSnapshot().context.lastError?.kind).toBe('timeout');
    expect(server.states).toEqual(['init', 'connecting', 'backoff']);
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false));
  });

  it('slow start past the startup timeout: backoff with a timeout error, process killed', async () => {
    const server = harness.start(stdioDefinition(['--slow-start-ms', '10000'], { startupTimeoutMs: 400 }));
    const pending = ensureConnected(server.actor);
    const pid = await spawnedServerPid();
    harness.watchGroup(pid);

    const result = await pending;
    expect(result).toMatchObject({ ok: false, error: { kind: 'backoff' } });
    const { lastError } = server.actor.getSnapshot().context;
    expect(lastError?.kind).toBe('timeout');
    expect(lastError && serverErrorText(lastError)).toMatch(/400 ms/);
    expect(server.states).toEqual(['init', 'connecting', 'backoff']);
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false));
  });

  it('slow start within the startup timeout: connected', async () => {
    const server = harness.start(stdioDefinition(['--slow-start-ms', '400'], { startupTimeoutMs: 10_000 }));
    expect((await ensureConnected(server.actor)).ok).toBe(true);
    expect(server.states).toEqual(['init', 'connecting', 'connected']);
    expect(textOf(await callTool(server, 'add', { a: 2, b: 3 }))).toBe('5');
  });

  it('hang on call: the caller gets a timeout CallError, the server is told, the actor stays connected', async () => {
    const server = harness.start(stdioDefinition(['--hang-call'], { requestTimeoutMs: 300 }));
    const error = await rejectionOf(callTool(server, 'echo', { text: 'never answered' }));
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/tools\/call echo on "fixture-stdio" timed out/);

    expect(server.states).toEqual(['init', 'connecting', 'connected']);
    expect(server.actor.getSnapshot().context.inFlight).toBe(0);
    // The same connection still answers, and the server saw the timed-out request cancelled.
    const cancelled = JSON.parse(textOf(await callTool(server, 'cancellations')));
    expect(cancelled).toEqual([{ tool: 'echo', reason: expect.any(String) }]);
    expect(server.pids).toHaveLength(1);
  });
});

describe('closing while connecting', () => {
  it('CLOSE while connecting kills the process; the waiting caller gets a closed error', async () => {
    const server = harness.start(stdioDefinition(['--hang-initialize'], { startupTimeoutMs: 30_000 }));
    const pending = ensureConnected(server.actor);
    const pid = await spawnedServerPid();
    harness.watchGroup(pid);

    server.actor.send({ type: 'CLOSE' });
    const result = await pending;
    expect(result).toEqual({
      ok: false,
      error: {
        kind: 'closed',
        server: 'fixture-stdio',
        message:
          'MCP server "fixture-stdio" was closed before it finished connecting. Try again: /mcp reconnect fixture-stdio tries now.',
      },
    });
    expect(server.states).toEqual(['init', 'connecting', 'closed']);
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false));
  });

  it('stopping the actor while connecting kills the process; the waiting caller is told', async () => {
    const server = harness.start(stdioDefinition(['--hang-initialize'], { startupTimeoutMs: 30_000 }));
    const pending = ensureConnected(server.actor);
    const pid = await spawnedServerPid();
    harness.watchGroup(pid);

    server.actor.stop();
    const result = await pending;
    expect(result).toMatchObject({ ok: false, error: { kind: 'closed' } });
    expect(!result.ok && result.error.message).toMatch(/no longer running in this session/);
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false));
  });
});

describe('closing with a call in flight', () => {
  it('CLOSE while a call hangs: the caller gets a closed CallError and the process is gone', async () => {
    const server = harness.start(stdioDefinition(['--hang-call'], { requestTimeoutMs: 30_000 }));
    expect((await ensureConnected(server.actor)).ok).toBe(true);
    const [pid] = server.pids;
    const call = rejectionOf(callTool(server, 'echo', { text: 'never answered' }));
    await vi.waitFor(() => expect(server.actor.getSnapshot().context.inFlight).toBe(1));

    server.actor.send({ type: 'CLOSE' });
    const error = await call;
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('closed');
    await server.reach('closed');
    expect(server.states).toEqual(['init', 'connecting', 'connected', 'closing', 'closed']);
    expect(server.actor.getSnapshot().context.inFlight).toBe(0);
    await vi.waitFor(() => expect(isAlive(pid!)).toBe(false));
  });
});
