// The adapter against @modelcontextprotocol/server-everything, a third-party reference server, over
// stdio and over Streamable HTTP (bound to 127.0.0.1 by the loopback-only preload).

import { describe, expect, test } from 'vitest';
import { CallError } from '../../../src/adapters/mcp/index.ts';
import type { Connection } from '../../../src/ports/connection.ts';
import { httpDefinition, serverDefinition } from '../../fixtures/servers/definitions.ts';
import { EVERYTHING_ENTRY, startEverythingHttp } from '../../fixtures/servers/spawn.ts';
import { rejectionOf, textOf, useAdapterHarness } from './harness.ts';

const harness = useAdapterHarness();

const transports: Array<[string, () => Promise<Connection>]> = [
  [
    'stdio',
    () =>
      harness.connect(
        serverDefinition({
          name: 'everything',
          transport: 'stdio',
          command: process.execPath,
          args: [EVERYTHING_ENTRY],
        }),
      ),
  ],
  [
    'streamable-http',
    async () => {
      const server = await startEverythingHttp();
      harness.defer(() => server.stop());
      return harness.connect(httpDefinition(server.url, { name: 'everything' }));
    },
  ],
];

// Two tests per transport, each on its own server process: spawning costs more than the calls.
describe.each(transports)('server-everything over %s', (transport, connect) => {
  test('connects, lists its tools, answers echo and get-sum', async () => {
    const connection = await connect();
    expect(connection.catalog.transport).toBe(transport);
    expect(connection.catalog.serverInfo?.name).toMatch(/everything/);
    expect(connection.catalog.instructions?.length).toBeGreaterThan(100);
    const names = connection.catalog.tools.map((tool) => tool.name);
    for (const name of ['echo', 'get-sum', 'trigger-long-running-operation', 'get-structured-content']) {
      expect(names).toContain(name);
    }
    expect(connection.catalog.resources.length).toBeGreaterThan(0);
    expect((await connection.listTools()).map((tool) => tool.name)).toEqual(expect.arrayContaining(names));

    expect(textOf(await connection.callTool('echo', { message: 'hello' }))).toBe('Echo: hello');
    expect(textOf(await connection.callTool('get-sum', { a: 19, b: 23 }))).toBe(
      'The sum of 19 and 23 is 42.',
    );
    const structured = await connection.callTool('get-structured-content', { location: 'New York' });
    expect(structured.structuredContent).toBeDefined();
  });

  test('a task-required tool runs as a task: its status messages are progress, and aborting cancels it', async () => {
    const connection = await connect();
    const messages: string[] = [];
    const result = await connection.callTool(
      'simulate-research-query',
      { topic: 'actors' },
      { onProgress: (p) => messages.push(p.message ?? '') },
    );
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/actors/);
    expect(messages).toEqual(expect.arrayContaining(['Gathering sources...', 'Generating report...']));

    const controller = new AbortController();
    const cancelled = connection.callTool(
      'simulate-research-query',
      { topic: 'cancelled' },
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    const error = await rejectionOf(cancelled);
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('aborted');
    expect(textOf(await connection.callTool('echo', { message: 'still here' }))).toBe('Echo: still here');
  });

  test('trigger-long-running-operation reports progress, and a call can be cancelled', async () => {
    const connection = await connect();
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = await connection.callTool(
      'trigger-long-running-operation',
      { duration: 0.4, steps: 4 },
      { onProgress: (p) => progress.push(p), timeoutMs: 10_000 },
    );
    expect(textOf(result)).toMatch(/Long running operation completed/);
    expect(progress).toEqual([1, 2, 3, 4].map((step) => ({ progress: step, total: 4 })));

    const controller = new AbortController();
    const call = connection.callTool(
      'trigger-long-running-operation',
      { duration: 30, steps: 60 },
      { signal: controller.signal, onProgress: () => controller.abort('enough') },
    );
    const error = await rejectionOf(call);
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('aborted');
    expect(textOf(await connection.callTool('echo', { message: 'still here' }))).toBe('Echo: still here');
  });
});
