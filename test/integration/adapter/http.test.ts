// The adapter against the HTTP fixture on 127.0.0.1: Streamable HTTP, headers and bearer tokens, 401,
// the SSE fallback (only on 404/405), and expired sessions renewed once and retried.

import { describe, expect, test, vi } from 'vitest';
import { CallError } from '../../../src/adapters/mcp/index.ts';
import { ConnectError } from '../../../src/ports/mcp.ts';
import { httpDefinition } from '../../fixtures/servers/definitions.ts';
import { recordEvents, rejectionOf, textOf, useAdapterHarness } from './harness.ts';

const harness = useAdapterHarness();

const initializeCount = (requests: string[]) =>
  requests.filter((line) => line.endsWith(' initialize')).length;

describe('Streamable HTTP', () => {
  test('connects, lists and calls', async () => {
    const server = await harness.http(['--pages', '3']);
    const connection = await harness.connect(httpDefinition(server.url));
    expect(connection.catalog.transport).toBe('streamable-http');
    expect(connection.catalog.serverInfo?.name).toBe('fixture-http');
    expect(connection.catalog.protocolVersion).toBe('2025-11-25');
    expect(connection.catalog.tools.map((tool) => tool.name)).toContain('forget_sessions');
    expect(connection.catalog.tools).toHaveLength(14);
    expect(connection.catalog.resources).toHaveLength(6);
    expect(connection.pid).toBeUndefined();
    expect(textOf(await connection.callTool('add', { a: 1, b: 2 }))).toBe('3');
    const progress: number[] = [];
    await connection.callTool('progress', { steps: 2 }, { onProgress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2]);
    // The fixture's request log arrives over its stderr pipe, which may trail the HTTP answers.
    await vi.waitFor(() =>
      expect(server.requests().filter((line) => line.includes('tools/list'))).toHaveLength(3),
    );
  });

  test('sends configured headers and the bearer token', async () => {
    const server = await harness.http(['--require-token', 's3cret']);
    const connection = await harness.connect(
      httpDefinition(server.url, {
        auth: 'bearer',
        bearerToken: 's3cret',
        headers: { 'X-Fixture': 'yes', Authorization: 'Bearer overridden' },
      }),
    );
    const headers = JSON.parse(textOf(await connection.callTool('request_headers', {})));
    expect(headers['x-fixture']).toBe('yes');
    expect(headers.authorization).toBe('Bearer s3cret');
  });

  test('401 without a valid token: kind auth', async () => {
    const server = await harness.http(['--require-token', 's3cret']);
    const missing = await rejectionOf(harness.connect(httpDefinition(server.url)));
    expect(missing).toBeInstanceOf(ConnectError);
    expect(missing.kind).toBe('auth');
    expect(missing.status).toBe(401);
    const wrong = await rejectionOf(
      harness.connect(httpDefinition(server.url, { auth: 'bearer', bearerToken: 'nope' })),
    );
    expect(wrong.kind).toBe('auth');
    expect(wrong.message).not.toContain('nope');
  });

  test('5xx is an http error, with no SSE fallback', async () => {
    const server = await harness.http(['--status', '503']);
    const error = await rejectionOf(
      harness.connect(httpDefinition(server.url, { protocolVersion: 'legacy' })),
    );
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.kind).toBe('http');
    expect(error.status).toBe(503);
    await vi.waitFor(() => expect(server.requests()).toEqual(['POST /mcp']));
  });

  test('protocolVersion auto: a 5xx on the protocol question is answered by trying the 2025 handshake once', async () => {
    const server = await harness.http(['--status', '503']);
    const error = await rejectionOf(harness.connect(httpDefinition(server.url, { protocolVersion: 'auto' })));
    expect(error.kind).toBe('http');
    expect(error.status).toBe(503);
    await vi.waitFor(() => expect(server.requests()).toEqual(['POST /mcp', 'POST /mcp']));
  });

  test('connection refused is a network error', async () => {
    const server = await harness.http();
    await server.stop();
    const error = await rejectionOf(harness.connect(httpDefinition(server.url)));
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  test('list_changed notifications reach onEvent', async () => {
    const server = await harness.http(['--list-changed']);
    const connection = await harness.connect(httpDefinition(server.url));
    const events = recordEvents(connection);
    await connection.callTool('change_lists', {});
    await vi.waitFor(() =>
      expect(events).toEqual([{ type: 'tools-changed' }, { type: 'resources-changed' }]),
    );
  });

  test('close ends the session on the server (DELETE) and is idempotent', async () => {
    const server = await harness.http();
    const connection = await harness.connect(httpDefinition(server.url));
    await Promise.all([connection.close(), connection.close()]);
    await vi.waitFor(() => expect(server.requests()).toContain('DELETE /mcp'));
    expect((await rejectionOf(connection.callTool('echo', { text: 'x' }))).kind).toBe('closed');
  });
});

describe('SSE fallback', () => {
  test.each([405, 404])('falls back to SSE when the first POST answers %i', async (status) => {
    const server = await harness.http(['--sse-only', '--post-status', String(status)]);
    const definition = httpDefinition(server.url, { protocolVersion: 'legacy' });
    const connection = await harness.connect(definition);
    expect(connection.catalog.transport).toBe('sse');
    expect(textOf(await connection.callTool('echo', { text: 'over sse' }))).toBe('over sse');
    await vi.waitFor(() => expect(server.requests().slice(0, 2)).toEqual(['POST /mcp', 'GET /mcp']));
  });

  test('protocolVersion auto: the probe and initialize are refused, SSE works, and the next connect skips the probe', async () => {
    const server = await harness.http(['--sse-only', '--post-status', '405']);
    const definition = httpDefinition(server.url, { protocolVersion: 'auto' });
    const posts = () => server.requests().filter((line) => line === 'POST /mcp').length;
    const gets = () => server.requests().filter((line) => line === 'GET /mcp').length;
    const first = await harness.connect(definition);
    expect(first.catalog.transport).toBe('sse');
    await vi.waitFor(() =>
      expect(server.requests().slice(0, 3)).toEqual(['POST /mcp', 'POST /mcp', 'GET /mcp']),
    );
    await first.close();
    const second = await harness.connect(definition);
    expect(second.catalog.transport).toBe('sse');
    await vi.waitFor(() => expect(gets()).toBe(2));
    expect(posts()).toBe(3);
  });

  test('when the SSE fallback fails too, the error says both were tried', async () => {
    const server = await harness.http(['--path', '/elsewhere']);
    const error = await rejectionOf(harness.connect(httpDefinition(`http://127.0.0.1:${server.port}/mcp`)));
    expect(error.kind).toBe('http');
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/Streamable HTTP answered HTTP 404; the SSE fallback failed too/);
  });

  test('transport sse goes straight to SSE', async () => {
    const server = await harness.http(['--sse-only']);
    const connection = await harness.connect(httpDefinition(server.url, { transport: 'sse' }));
    expect(connection.catalog.transport).toBe('sse');
    await vi.waitFor(() => expect(server.requests()[0]).toBe('GET /mcp'));
  });

  test('SSE passes the bearer token too', async () => {
    const server = await harness.http(['--sse-only', '--require-token', 'tok']);
    const connection = await harness.connect(
      httpDefinition(server.url, { auth: 'bearer', bearerToken: 'tok' }),
    );
    expect(connection.catalog.transport).toBe('sse');
    expect(textOf(await connection.callTool('add', { a: 2, b: 2 }))).toBe('4');
  });
});

describe('expired sessions', () => {
  test('a forgotten session (404) is renewed once and the call retried, transparently', async () => {
    const server = await harness.http();
    const connection = await harness.connect(httpDefinition(server.url));
    const events = recordEvents(connection);
    await connection.callTool('forget_sessions', {});
    expect(textOf(await connection.callTool('echo', { text: 'after restart' }))).toBe('after restart');
    await vi.waitFor(() => expect(initializeCount(server.requests())).toBe(2));
    expect(events).toContainEqual({ type: 'tools-changed' });
    expect(events.filter((event) => event.type === 'closed')).toEqual([]);
  });

  test('"Server not initialized" is renewed and retried too', async () => {
    const server = await harness.http(['--single-transport']);
    const connection = await harness.connect(httpDefinition(server.url));
    await connection.callTool('forget_sessions', {});
    expect(textOf(await connection.callTool('add', { a: 20, b: 22 }))).toBe('42');
    await vi.waitFor(() => expect(initializeCount(server.requests())).toBe(2));
  });

  test('concurrent calls on an expired session share one renewal', async () => {
    const server = await harness.http();
    const connection = await harness.connect(httpDefinition(server.url));
    await connection.callTool('forget_sessions', {});
    const results = await Promise.all(
      ['a', 'b', 'c'].map((text) => connection.callTool('echo', { text }).then(textOf)),
    );
    expect(results).toEqual(['a', 'b', 'c']);
    await vi.waitFor(() => expect(initializeCount(server.requests())).toBe(2));
  });

  test('a real server restart on the same port is survived', async () => {
    const first = await harness.http();
    const connection = await harness.connect(httpDefinition(first.url));
    await first.stop();
    const second = await harness.http([], { port: first.port });
    expect(textOf(await connection.callTool('echo', { text: 'hello again' }))).toBe('hello again');
    await vi.waitFor(() => expect(initializeCount(second.requests())).toBe(1));
  });

  test('when renewal fails, the caller gets the reason and the owner a closed event', async () => {
    const first = await harness.http();
    const connection = await harness.connect(httpDefinition(first.url));
    const events = recordEvents(connection);
    await first.stop();
    // The restarted server no longer speaks Streamable HTTP: the session is gone and so is the endpoint.
    const second = await harness.http(['--sse-only', '--post-status', '404'], { port: first.port });
    const error = await rejectionOf(connection.callTool('echo', { text: 'x' }));
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('closed');
    expect(error.message).toMatch(/session expired.*reconnecting failed: .*HTTP 404/);
    expect(events).toEqual([
      { type: 'closed', error: expect.stringMatching(/session expired.*reconnecting failed/) },
    ]);
    expect((await rejectionOf(connection.callTool('echo', { text: 'y' }))).kind).toBe('closed');
    // Renewal keeps the transport that worked: no SSE attempt.
    await vi.waitFor(() => expect(second.requests()).toEqual(['POST /mcp', 'POST /mcp']));
  });

  test('a 401 in the middle of a session: kind auth for the caller, closed for the owner', async () => {
    const first = await harness.http();
    const connection = await harness.connect(httpDefinition(first.url));
    const events = recordEvents(connection);
    await first.stop();
    // The restarted server suddenly wants a token we do not have.
    await harness.http(['--require-token', 'new'], { port: first.port });
    const error = await rejectionOf(connection.callTool('echo', { text: 'x' }));
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('auth');
    expect(error.message).toMatch(/"fixture-http" needs authentication \(HTTP 401\)/);
    expect(events).toEqual([{ type: 'closed', error: expect.stringMatching(/asks for authentication/) }]);
  });

  test('a server that went away: the call fails and the owner is told the connection is closed', async () => {
    const server = await harness.http();
    const connection = await harness.connect(httpDefinition(server.url));
    const events = recordEvents(connection);
    await server.stop();
    const error = await rejectionOf(connection.callTool('echo', { text: 'x' }));
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('closed');
    expect(events).toEqual([{ type: 'closed', error: expect.stringMatching(/connection refused/) }]);
  });
});
