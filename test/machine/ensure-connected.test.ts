// ensureConnected: what callers get in every state, shared connects, fail-fast and AbortSignal.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import { serverStateOf } from '../../src/machines/server.machine.ts';
import { ensureConnected } from '../../src/session/ensure-connected.ts';
import { startServer } from './fakes.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('ensureConnected', () => {
  it('connects a lazy server on first use and returns the live connection', async () => {
    const h = startServer();
    const pending = ensureConnected(h.actor);
    expect(serverStateOf(h.actor.getSnapshot())).toBe('connecting');
    const live = h.current().succeed();
    await expect(pending).resolves.toEqual({ ok: true, connection: live });
  });

  it('answers at once when already connected, without another attempt', async () => {
    const h = startServer();
    const first = ensureConnected(h.actor);
    const live = h.current().succeed();
    await first;
    await expect(ensureConnected(h.actor)).resolves.toEqual({ ok: true, connection: live });
    expect(h.attempts).toHaveLength(1);
  });

  it('concurrent callers share one connect', async () => {
    const h = startServer();
    const callers = [ensureConnected(h.actor), ensureConnected(h.actor), ensureConnected(h.actor)];
    expect(h.attempts).toHaveLength(1);
    const live = h.current().succeed();
    const results = await Promise.all(callers);
    expect(results.every((r) => r.ok && r.connection === live)).toBe(true);
  });

  it('needs-auth: answered at once with a message naming /mcp-auth <server>', async () => {
    const h = startServer();
    const first = ensureConnected(h.actor);
    h.current().fail('auth', 'HTTP 401 Unauthorized');
    const result = await first;
    expect(result).toMatchObject({ ok: false, error: { kind: 'needs-auth', server: 'demo' } });
    expect(!result.ok && result.error.message).toContain('/mcp-auth demo');
    const again = await ensureConnected(h.actor);
    expect(again).toMatchObject({
      ok: false,
      error: { kind: 'needs-auth', lastError: 'HTTP 401 Unauthorized' },
    });
    expect(h.attempts).toHaveLength(1);
    expect(serverStateOf(h.actor.getSnapshot())).toBe('needsAuth');
  });

  it('lazy server in backoff fails fast with the last error and the time to the next try', async () => {
    const h = startServer({ jitter: 1 });
    h.actor.send({ type: 'CONNECT' });
    h.current().fail('exited', 'process exited with code 1', 'Error: missing API_KEY');
    await waitFor(h.actor, (s) => s.matches('backoff'));
    h.actor.send({ type: 'RETRY' });
    h.current().fail('exited', 'process exited with code 1', 'Error: missing API_KEY');
    await waitFor(h.actor, (s) => s.matches('backoff'));
    h.advance(500);

    const result = await ensureConnected(h.actor);
    expect(result).toEqual({
      ok: false,
      error: {
        kind: 'backoff',
        server: 'demo',
        message:
          'MCP server "demo" failed to connect: process exited with code 1. It can be tried again in 2 s; /mcp reconnect demo tries now.',
        retryInMs: 1_500,
        lastError: 'process exited with code 1',
        stderrTail: 'Error: missing API_KEY',
      },
    });
    expect(h.attempts).toHaveLength(2);

    // When the delay is over the lazy server is closed, and the next use connects again.
    h.advance(1_500);
    expect(serverStateOf(h.actor.getSnapshot())).toBe('closed');
    const next = ensureConnected(h.actor);
    const live = h.current().succeed();
    await expect(next).resolves.toEqual({ ok: true, connection: live });
  });

  it('keep-alive in backoff also fails fast, naming the automatic retry', async () => {
    const h = startServer({ lifecycle: 'keep-alive', jitter: 1 });
    h.actor.send({ type: 'CONNECT' });
    h.current().fail('network', 'connect ECONNREFUSED 127.0.0.1:9');
    await waitFor(h.actor, (s) => s.matches('backoff'));
    const result = await ensureConnected(h.actor);
    expect(!result.ok && result.error.message).toBe(
      'MCP server "demo" failed to connect: connect ECONNREFUSED 127.0.0.1:9. The next automatic try is in 1 s; /mcp reconnect demo tries now.',
    );
    expect(h.attempts).toHaveLength(1);
  });

  it('a connect that fails while the caller waits returns the backoff error', async () => {
    const h = startServer({ jitter: 1 });
    const pending = ensureConnected(h.actor);
    h.current().fail('spawn', 'spawn demo-server ENOENT');
    await expect(pending).resolves.toMatchObject({
      ok: false,
      error: { kind: 'backoff', retryInMs: 1_000, lastError: 'spawn demo-server ENOENT' },
    });
  });

  it('a startup timeout while the caller waits returns the backoff error', async () => {
    const h = startServer({ definition: { startupTimeoutMs: 30_000 } });
    const pending = ensureConnected(h.actor);
    h.advance(30_000);
    await expect(pending).resolves.toMatchObject({
      ok: false,
      error: { kind: 'backoff', lastError: 'did not finish starting within 30 s' },
    });
  });

  it('CLOSE while the caller waits returns closed', async () => {
    const h = startServer();
    const pending = ensureConnected(h.actor);
    h.actor.send({ type: 'CLOSE' });
    await expect(pending).resolves.toMatchObject({ ok: false, error: { kind: 'closed', server: 'demo' } });
  });

  it('a stopped actor answers closed, before and during the wait', async () => {
    const a = startServer();
    const pending = ensureConnected(a.actor);
    a.actor.stop();
    await expect(pending).resolves.toMatchObject({ ok: false, error: { kind: 'closed' } });
    expect(a.current().options.signal.aborted).toBe(true);
    await expect(ensureConnected(a.actor)).resolves.toMatchObject({ ok: false, error: { kind: 'closed' } });
  });

  it('an already aborted signal answers aborted without connecting', async () => {
    const h = startServer();
    const result = await ensureConnected(h.actor, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ ok: false, error: { kind: 'aborted', server: 'demo' } });
    expect(serverStateOf(h.actor.getSnapshot())).toBe('init');
    expect(h.attempts).toHaveLength(0);
  });

  it('aborting one caller leaves the shared connect running for the others', async () => {
    const h = startServer();
    const controller = new AbortController();
    const aborted = ensureConnected(h.actor, { signal: controller.signal });
    const patient = ensureConnected(h.actor);
    controller.abort();
    await expect(aborted).resolves.toMatchObject({ ok: false, error: { kind: 'aborted' } });
    expect(serverStateOf(h.actor.getSnapshot())).toBe('connecting');
    expect(h.current().options.signal.aborted).toBe(false);
    const live = h.current().succeed();
    await expect(patient).resolves.toEqual({ ok: true, connection: live });
  });
});
