// The real server actor against HTTP fixtures on 127.0.0.1: Streamable HTTP, SSE-only servers (the
// fallback on 404/405), 401 (needs-auth, then AUTHENTICATED), a server that forgets its sessions (the
// connection renews them, the actor stays connected), and concurrent callers sharing one connect.

import { describe, expect, it, vi } from 'vitest';
import { CallError, connectMcp } from '../../../src/adapters/mcp/index.ts';
import type { Connector } from '../../../src/machines/server-types.ts';
import { serverErrorText } from '../../../src/server-error-text.ts';
import { ensureConnected } from '../../../src/session/ensure-connected.ts';
import { httpDefinition } from '../../fixtures/servers/definitions.ts';
import { callTool, rejectionOf, textOf, useServerActorHarness } from './harness.ts';

const harness = useServerActorHarness();

const initializeRequests = (requests: string[]) =>
  requests.filter((request) => /\binitialize\b/.test(request));

describe('Streamable HTTP', () => {
  it('connects, calls through the connection, and CLOSE ends the session', async () => {
    const fixture = await harness.http();
    const server = harness.start(httpDefinition(fixture.url));
    const result = await ensureConnected(server.actor);
    expect(result.ok).toBe(true);
    expect(server.states).toEqual(['init', 'connecting', 'connected']);
    expect(server.actor.getSnapshot().context.catalog).toMatchObject({
      transport: 'streamable-http',
      serverInfo: { name: 'fixture-http' },
    });
    expect(textOf(await callTool(server, 'echo', { text: 'over http' }))).toBe('over http');

    server.actor.send({ type: 'CLOSE' });
    await server.reach('closed');
    expect(server.states).toEqual(['init', 'connecting', 'connected', 'closing', 'closed']);
    // Closing the connection terminates the HTTP session.
    await vi.waitFor(() => expect(fixture.requests()).toContain('DELETE /mcp'));
    expect(server.told).toEqual(server.states.filter((state) => state !== 'closing'));
  });

  it('concurrent ensureConnected callers share one connect: one initialize', async () => {
    const fixture = await harness.http();
    const server = harness.start(httpDefinition(fixture.url));
    const results = await Promise.all([1, 2, 3, 4].map(() => ensureConnected(server.actor)));
    const connections = results.map((result) => (result.ok ? result.connection : undefined));
    expect(connections[0]).toBeDefined();
    expect(new Set(connections).size).toBe(1);
    expect(server.states).toEqual(['init', 'connecting', 'connected']);
    expect(initializeRequests(fixture.requests())).toEqual(['POST /mcp initialize']);
  });
});

describe('SSE-only servers', () => {
  it.each([405, 404])('the first POST answers %i: falls back to SSE and works', async (status) => {
    const fixture = await harness.http(['--sse-only', '--post-status', String(status)]);
    const server = harness.start(httpDefinition(fixture.url));
    expect((await ensureConnected(server.actor)).ok).toBe(true);
    expect(server.states).toEqual(['init', 'connecting', 'connected']);
    expect(server.actor.getSnapshot().context.catalog?.transport).toBe('sse');
    expect(textOf(await callTool(server, 'echo', { text: 'over sse' }))).toBe('over sse');
    const requests = fixture.requests();
    expect(requests[0]).toBe('POST /mcp');
    expect(requests).toContain('GET /mcp');
  });
});

describe('authentication', () => {
  it('401: needs-auth, callers are told to run /mcp-auth; AUTHENTICATED with a fixed token connects', async () => {
    const fixture = await harness.http(['--require-token', 'right-token']);
    // Stands in for the credentials /mcp-auth stores: the connector reads them on every connect.
    const credentials = { token: 'wrong-token' };
    let attempts = 0;
    const connector: Connector = (definition, options) => {
      attempts++;
      return connectMcp({ ...definition, auth: 'bearer', bearerToken: credentials.token }, options);
    };
    const server = harness.start(httpDefinition(fixture.url), { connector });

    const first = await ensureConnected(server.actor);
    expect(first).toMatchObject({
      ok: false,
      error: {
        kind: 'needs-auth',
        server: 'fixture-http',
        message:
          'MCP server "fixture-http" needs authentication. Run /mcp-auth fixture-http, then try again.',
        lastError: expect.stringMatching(/needs authentication \(HTTP 401\)/),
      },
    });
    expect(server.states).toEqual(['init', 'connecting', 'needsAuth']);

    // Callers get the same answer without another attempt.
    const second = await ensureConnected(server.actor);
    expect(second).toMatchObject({ ok: false, error: { kind: 'needs-auth' } });
    expect(server.states).toEqual(['init', 'connecting', 'needsAuth']);
    expect(attempts).toBe(1);

    // Authenticated, but the token is still wrong: back to needs-auth.
    server.actor.send({ type: 'AUTHENTICATED' });
    await vi.waitFor(() =>
      expect(server.states).toEqual(['init', 'connecting', 'needsAuth', 'connecting', 'needsAuth']),
    );

    credentials.token = 'right-token';
    server.actor.send({ type: 'AUTHENTICATED' });
    await server.reach('connected');
    expect(attempts).toBe(3);
    expect(server.states).toEqual([
      'init',
      'connecting',
      'needsAuth',
      'connecting',
      'needsAuth',
      'connecting',
      'connected',
    ]);
    expect(server.actor.getSnapshot().context.lastError).toBeUndefined();
    expect(textOf(await callTool(server, 'echo', { text: 'authorized' }))).toBe('authorized');
    expect(server.told).toEqual(server.states.filter((state) => state !== 'closing'));
  });
});

describe('a server that forgets its sessions (restart)', () => {
  it.each([
    ['session per client (404 Session not found)', []],
    ['single transport ("Server not initialized")', ['--single-transport']],
  ])('%s: the next call renews the session, the actor stays connected', async (_, flags) => {
    const fixture = await harness.http(flags);
    const server = harness.start(httpDefinition(fixture.url));
    expect((await ensureConnected(server.actor)).ok).toBe(true);
    const catalogsBefore = server.catalogs.length;

    expect(textOf(await callTool(server, 'forget_sessions'))).toBe('sessions will be forgotten');
    expect(textOf(await callTool(server, 'echo', { text: 'after restart' }))).toBe('after restart');

    expect(initializeRequests(fixture.requests())).toHaveLength(2);
    expect(server.states).toEqual(['init', 'connecting', 'connected']);
    // A renewed session may offer other tools: the actor re-lists them and tells its parent.
    await vi.waitFor(() => expect(server.catalogs.length).toBeGreaterThan(catalogsBefore));
    await vi.waitFor(() =>
      expect(server.actor.getSnapshot().matches({ connected: { tools: 'current' } })).toBe(true),
    );
    expect(server.actor.getSnapshot().context.lastError).toBeUndefined();
  });
});

describe('the HTTP server goes away', () => {
  it('lazy: the call fails with a network error, the actor closes, the next caller gets backoff', async () => {
    const fixture = await harness.http();
    const server = harness.start(httpDefinition(fixture.url));
    expect((await ensureConnected(server.actor)).ok).toBe(true);

    await fixture.stop();
    const error = await rejectionOf(callTool(server, 'echo', { text: 'anyone there?' }));
    expect(error).toBeInstanceOf(CallError);
    // The connection is unusable from now on, so the call reports it gone (not a one-off network error).
    expect(error.kind).toBe('closed');
    expect(error.message).toMatch(/is gone: connection refused by http:\/\/127\.0\.0\.1:\d+$/);

    await server.reach('closed');
    const { lastError } = server.actor.getSnapshot().context;
    expect(lastError?.kind).toBe('network');
    expect(lastError && serverErrorText(lastError)).toMatch(
      /^connection lost: connection refused by http:\/\/127\.0\.0\.1:\d+$/,
    );
    const next = await ensureConnected(server.actor);
    expect(next).toMatchObject({
      ok: false,
      error: { kind: 'backoff', lastError: expect.stringMatching(/Cannot reach "fixture-http"/) },
    });
    expect(server.states).toEqual([
      'init',
      'connecting',
      'connected',
      'closing',
      'closed',
      'connecting',
      'backoff',
    ]);
  });
});
