// protocolVersion against real servers: a 2026-07-28-only server (the SDK v2 server package, initialize
// refused) over stdio and Streamable HTTP, and the legacy fixtures. `auto` asks once per server entry
// and remembers; `legacy` never asks; a pin never falls back.

import { describe, expect, test, vi } from 'vitest';
import { createMcpConnector } from '../../../src/adapters/mcp/index.ts';
import { memoryProtocolEraStore } from '../../../src/adapters/mcp/protocol-eras.ts';
import { httpDefinition, serverDefinition, stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { modernStdioFixture, startModernHttpFixture } from '../../fixtures/servers/spawn.ts';
import { rejectionOf, textOf, useAdapterHarness } from './harness.ts';

const harness = useAdapterHarness();

function modernStdio(overrides = {}) {
  return serverDefinition({ name: 'modern', transport: 'stdio', ...modernStdioFixture(), ...overrides });
}

describe('a 2026-07-28-only server', () => {
  test('stdio, auto: discovered, listed and called; elicitation comes back on the call (input_required)', async () => {
    const asked: string[] = [];
    const connection = await harness.connect(modernStdio(), {
      host: {
        elicit: async (request) => {
          asked.push(request.message);
          return { action: 'accept', content: { confirm: true } };
        },
      },
    });
    expect(connection.catalog.protocolVersion).toBe('2026-07-28');
    expect(connection.catalog.serverInfo?.name).toBe('fixture-modern');
    expect(connection.catalog.tools.map((tool) => tool.name).sort()).toEqual([
      'add',
      'confirm',
      'grow',
      'research',
      'slow',
    ]);
    expect(textOf(await connection.callTool('add', { a: 2, b: 3 }))).toBe('5');
    expect(textOf(await connection.callTool('confirm', { action: 'deploy' }))).toBe('deploy: done');
    expect(asked).toEqual(['Really deploy?']);
    await connection.ping?.();
  });

  test('a declined elicitation reaches the server as declined', async () => {
    const connection = await harness.connect(modernStdio(), {
      host: { elicit: async () => ({ action: 'decline' }) },
    });
    expect(textOf(await connection.callTool('confirm', { action: 'deploy' }))).toBe(
      'not confirmed (decline)',
    );
  });

  test('progress arrives, and a call can be cancelled', async () => {
    const connection = await harness.connect(modernStdio());
    const progress: Array<[number, string | undefined]> = [];
    const result = await connection.callTool(
      'slow',
      { steps: 3, ms: 20 },
      { onProgress: (p) => progress.push([p.progress, p.message]) },
    );
    expect(textOf(result)).toBe('finished 3 steps');
    expect(progress).toEqual([
      [1, 'step 1 of 3'],
      [2, 'step 2 of 3'],
      [3, 'step 3 of 3'],
    ]);
    const controller = new AbortController();
    const call = connection.callTool('slow', { steps: 50, ms: 50 }, { signal: controller.signal });
    controller.abort();
    expect((await rejectionOf(call)).kind).toBe('aborted');
    expect(textOf(await connection.callTool('add', { a: 1, b: 1 }))).toBe('2');
  });

  test('legacy refuses to guess: the server answers initialize with an error', async () => {
    const error = await rejectionOf(harness.connect(modernStdio({ protocolVersion: 'legacy' })));
    expect(error.kind).toBe('protocol');
  });

  test('HTTP, pinned: the required Mcp-Method / Mcp-Name headers go on every request', async () => {
    const server = await harness.http();
    await server.stop();
    const modern = await startModernHttpFixture();
    harness.defer(() => modern.stop());
    const connection = await harness.connect(
      httpDefinition(modern.url, { name: 'modern-http', protocolVersion: '2026-07-28' }),
    );
    expect(connection.catalog.protocolVersion).toBe('2026-07-28');
    expect(connection.catalog.transport).toBe('streamable-http');
    expect(textOf(await connection.callTool('add', { a: 4, b: 5 }))).toBe('9');
    await vi.waitFor(() =>
      expect(modern.requests().find((line) => line.startsWith('POST tools/call '))).toBeDefined(),
    );
    const call = modern.requests().find((line) => line.startsWith('POST tools/call '))!;
    const headers = JSON.parse(call.slice('POST tools/call '.length));
    expect(headers).toMatchObject({
      'mcp-method': 'tools/call',
      'mcp-name': 'add',
      'mcp-protocol-version': '2026-07-28',
    });
    expect(modern.requests().some((line) => line.startsWith('POST initialize'))).toBe(false);
  });

  test('the tool list says how long it stays fresh (ttlMs)', async () => {
    const modern = await startModernHttpFixture(['--list-ttl-ms', '60000']);
    harness.defer(() => modern.stop());
    const connection = await harness.connect(httpDefinition(modern.url, { name: 'modern-ttl' }));
    expect(connection.catalog.toolsTtlMs).toBe(60_000);
    const legacy = await harness.connect(stdioDefinition());
    expect(legacy.catalog.toolsTtlMs).toBeUndefined();
  });

  test('a tool list change arrives over subscriptions/listen', async () => {
    const modern = await startModernHttpFixture();
    harness.defer(() => modern.stop());
    const connection = await harness.connect(httpDefinition(modern.url, { name: 'modern-listen' }));
    const changed = new Promise<void>((resolve) =>
      connection.onEvent((event) => {
        if (event.type === 'tools-changed') resolve();
      }),
    );
    await connection.callTool('grow', {});
    await changed;
    expect((await connection.listTools()).map((tool) => tool.name)).toContain('grown');
  });
});

describe('auto remembers the answer per server entry', () => {
  test('modern: the second connect sends no server/discover', async () => {
    const eras = memoryProtocolEraStore();
    const connector = createMcpConnector({ protocolEras: eras });
    const modern = await startModernHttpFixture();
    harness.defer(() => modern.stop());
    const definition = httpDefinition(modern.url, { name: 'modern-remembered', configHash: 'm1' });
    const first = await harness.connect(definition, { connector });
    expect(first.catalog.protocolVersion).toBe('2026-07-28');
    await first.close();
    expect(eras.get(definition)?.era).toBe('modern');
    const discoveries = () =>
      modern.requests().filter((line) => line.startsWith('POST server/discover')).length;
    await vi.waitFor(() => expect(discoveries()).toBe(1));
    const second = await harness.connect(definition, { connector });
    expect(textOf(await second.callTool('add', { a: 1, b: 2 }))).toBe('3');
    expect(discoveries()).toBe(1);
  });

  test('legacy stdio server: answered once, then straight to initialize', async () => {
    const eras = memoryProtocolEraStore();
    const connector = createMcpConnector({ protocolEras: eras });
    const definition = stdioDefinition([], { configHash: 'l1' });
    const first = await harness.connect(definition, { connector });
    expect(first.catalog.protocolVersion).toBe('2025-11-25');
    expect(eras.get(definition)?.era).toBe('legacy');
    await first.close();
    const second = await harness.connect(definition, { connector });
    expect(second.catalog.protocolVersion).toBe('2025-11-25');
  });

  test('a remembered modern answer that went stale: asked again, connected as legacy', async () => {
    const eras = memoryProtocolEraStore();
    const connector = createMcpConnector({ protocolEras: eras });
    const modern = await startModernHttpFixture();
    harness.defer(() => modern.stop());
    const definition = httpDefinition(modern.url, { name: 'stale', configHash: 's1' });
    await (await harness.connect(definition, { connector })).close();
    const remembered = eras.get(definition);
    expect(remembered?.era).toBe('modern');
    // The same entry now reaches a 2025-only server.
    const legacyServer = await harness.http();
    const moved = { ...definition, url: legacyServer.url };
    await eras.set(moved, remembered!);
    const connection = await harness.connect(moved, { connector });
    expect(connection.catalog.protocolVersion).toBe('2025-11-25');
    expect(eras.get(moved)?.era).toBe('legacy');
  });

  test('a stdio server that exits when asked before initialize is started again in the 2025 protocol', async () => {
    const eras = memoryProtocolEraStore();
    const connector = createMcpConnector({ protocolEras: eras });
    const definition = stdioDefinition(['--exit-before-initialize'], { configHash: 'x1' });
    const connection = await harness.connect(definition, { connector });
    expect(connection.catalog.protocolVersion).toBe('2025-11-25');
    expect(textOf(await connection.callTool('add', { a: 1, b: 2 }))).toBe('3');
    expect(eras.get(definition)?.era).toBe('legacy');
    // The first process heard server/discover and exited; the second one serves.
    expect(connection.stderrTail()).toContain('exiting: server/discover before initialize');
  });

  test('pinned 2026-07-28 against a 2025-only server: a clear error, no fallback', async () => {
    const legacyServer = await harness.http();
    const error = await rejectionOf(
      harness.connect(httpDefinition(legacyServer.url, { protocolVersion: '2026-07-28' })),
    );
    expect(error.kind).toBe('protocol');
    expect(error.message).toMatch(/2026-07-28/);
  });
});
