// The MCP adapter against the stdio fixture server over real stdio: catalog, calls, progress,
// timeouts, cancellation, notifications, stderr and stdout noise.

import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { CallError } from '../../../src/adapters/mcp/index.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { isAlive, stdioFixture } from '../../fixtures/servers/spawn.ts';
import { recordEvents, rejectionOf, textOf, useAdapterHarness } from './harness.ts';

const harness = useAdapterHarness();

const ALL_TOOLS = [
  'echo',
  'add',
  'progress',
  'hang',
  'cancellations',
  'crash',
  'change_lists',
  'reshape',
  'sloppy_structured',
  'task_required',
  'request_headers',
  'environment',
  'structured',
];

describe('connect', () => {
  test('reports server info, instructions, capabilities, tools and resources', async () => {
    const connection = await harness.connect(stdioDefinition());
    const { catalog } = connection;
    expect(catalog.transport).toBe('stdio');
    expect(catalog.serverInfo).toEqual({ name: 'fixture-stdio', version: '1.2.3', title: 'Fixture server' });
    expect(catalog.instructions).toBe('Instructions of fixture-stdio.');
    expect(catalog.protocolVersion).toBe('2025-11-25');
    expect(catalog.capabilities).toMatchObject({ tools: { listChanged: false }, resources: {} });
    expect(catalog.tools.map((tool) => tool.name)).toEqual(ALL_TOOLS);
    const add = catalog.tools.find((tool) => tool.name === 'add')!;
    expect(add).toMatchObject({
      description: 'Adds two numbers.',
      inputSchema: { type: 'object', required: ['a', 'b'] },
      annotations: { readOnlyHint: true },
    });
    expect(catalog.tools.find((tool) => tool.name === 'structured')?.outputSchema).toMatchObject({
      type: 'object',
    });
    expect(catalog.resources.map((resource) => resource.uri)).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => `fixture://doc/${n}`),
    );
    expect(catalog.resources[0]).toEqual({
      uri: 'fixture://doc/1',
      name: 'doc-1',
      mimeType: 'text/plain',
      description: 'Fixture document 1',
    });
    expect(connection.pid).toBeTypeOf('number');
    expect(isAlive(connection.pid!)).toBe(true);
  });

  test('follows nextCursor through 3 pages of tools and resources', async () => {
    const connection = await harness.connect(stdioDefinition(['--pages', '3']));
    expect(connection.catalog.tools.map((tool) => tool.name)).toEqual(ALL_TOOLS);
    expect(connection.catalog.resources).toHaveLength(6);
    // The fixture logs each page request on stderr, a pipe that may trail its stdout answers.
    await vi.waitFor(() => {
      const tail = connection.stderrTail();
      for (const cursor of ['-', 'page-1', 'page-2']) {
        expect(tail).toContain(`fixture: tools/list cursor=${cursor}`);
        expect(tail).toContain(`fixture: resources/list cursor=${cursor}`);
      }
    });
    expect(connection.stderrTail()).not.toContain('cursor=page-3');
    // Later listings paginate too.
    expect((await connection.listTools()).map((tool) => tool.name)).toEqual(ALL_TOOLS);
    expect(await connection.listResources()).toHaveLength(6);
  });

  test('lists no resources when the server does not offer them', async () => {
    const connection = await harness.connect(stdioDefinition(['--no-resources']));
    expect(connection.catalog.capabilities.resources).toBeUndefined();
    expect(connection.catalog.resources).toEqual([]);
    expect(connection.stderrTail()).not.toContain('resources/list');
  });

  test('still connects when resources/list fails: tools are what matter', async () => {
    const connection = await harness.connect(stdioDefinition(['--resources-fail']));
    await vi.waitFor(() => expect(connection.stderrTail()).toContain('fixture: resources/list'));
    expect(connection.catalog.resources).toEqual([]);
    expect(connection.catalog.tools.map((tool) => tool.name)).toEqual(ALL_TOOLS);
  });

  test('lists resource templates over every page; a server without them lists none, quietly', async () => {
    const connection = await harness.connect(stdioDefinition(['--templates', '--pages', '2']));
    expect(connection.catalog.resourceTemplates).toEqual([
      {
        uriTemplate: 'fixture://doc/{id}',
        name: 'doc-by-id',
        description: 'A fixture document by its number',
        mimeType: 'text/plain',
      },
      {
        uriTemplate: 'fixture://search{?q,limit}',
        name: 'search',
        description: 'Searches the fixture documents',
      },
      { uriTemplate: 'fixture://files/{+path}', name: 'file', title: 'A file by path' },
    ]);
    await vi.waitFor(() => {
      for (const cursor of ['-', 'page-1']) {
        expect(connection.stderrTail()).toContain(`fixture: resources/templates/list cursor=${cursor}`);
      }
    });
    expect(await connection.listResourceTemplates()).toHaveLength(3);

    const plain = await harness.connect(stdioDefinition());
    expect(plain.catalog.resourceTemplates).toEqual([]);
    expect(plain.stderrTail()).not.toContain('[pi-mcp-actors]');
  });

  test('still connects when resources/templates/list fails, and says so in the log', async () => {
    const logged: string[] = [];
    const connection = await harness.connect(stdioDefinition(['--templates-fail']), {
      host: { log: (level, text) => logged.push(`${level}: ${text}`) },
    });
    expect(connection.catalog.resourceTemplates).toEqual([]);
    expect(connection.catalog.resources).toHaveLength(6);
    expect(connection.catalog.tools.map((tool) => tool.name)).toContain('echo');
    expect(logged).toEqual([
      expect.stringMatching(
        /^warning: resources\/templates\/list failed, continuing without: .*templates are broken today/,
      ),
    ]);
    expect(connection.stderrTail()).toContain('[pi-mcp-actors] resources/templates/list failed');
  });

  test('lists no templates when the server does not offer resources', async () => {
    const connection = await harness.connect(stdioDefinition(['--no-resources', '--templates']));
    expect(connection.catalog.resourceTemplates).toBeUndefined();
    expect(connection.stderrTail()).not.toContain('resources/templates/list');
  });

  test('inheritEnv false: configured env over the SDK default environment only, and cwd', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'pi-mcp-cwd-')));
    harness.defer(async () => rmSync(cwd, { recursive: true, force: true }));
    process.env.PI_MCP_TEST_NOT_INHERITED = 'leak';
    harness.defer(async () => delete process.env.PI_MCP_TEST_NOT_INHERITED);
    const connection = await harness.connect(
      stdioDefinition([], { env: { FIXTURE_TOKEN: 'abc', HOME: '/custom-home' }, cwd, inheritEnv: false }),
    );
    const reported = JSON.parse(textOf(await connection.callTool('environment', {})));
    expect(reported.cwd).toBe(cwd);
    expect(reported.env.FIXTURE_TOKEN).toBe('abc');
    expect(reported.env.HOME).toBe('/custom-home');
    expect(reported.env.PATH).toBe(process.env.PATH);
    expect(reported.env.PI_MCP_TEST_NOT_INHERITED).toBeUndefined();
  });

  test('by default (as in pi-mcp-adapter and Pi) the server gets the whole environment, env over it', async () => {
    // A server that worked under pi-mcp-adapter because it read e.g. GITHUB_TOKEN from the shell.
    process.env.PI_MCP_TEST_SHELL_TOKEN = 'from-the-shell';
    harness.defer(async () => delete process.env.PI_MCP_TEST_SHELL_TOKEN);
    const fixture = stdioFixture();
    const config = loadConfig({
      agentDir: '/home/u/.pi/agent',
      cwd: '/work/app',
      homeDir: '/home/u',
      env: {},
      projectTrusted: false,
      readFile: (file) =>
        file === '/home/u/.pi/agent/mcp.json'
          ? JSON.stringify({ mcpServers: { s: { ...fixture, env: { HOME: '/custom-home' } } } })
          : undefined,
    });
    const definition = config.servers.find((server) => server.name === 's')!;
    expect(definition.inheritEnv).toBe(true);
    const connection = await harness.connect({ ...definition, startupTimeoutMs: 15_000 });
    const reported = JSON.parse(textOf(await connection.callTool('environment', {})));
    expect(reported.env.PI_MCP_TEST_SHELL_TOKEN).toBe('from-the-shell');
    expect(reported.env.HOME).toBe('/custom-home');
  });
});

describe('callTool', () => {
  test('maps results: text, structuredContent, isError', async () => {
    const connection = await harness.connect(stdioDefinition());
    expect(await connection.callTool('echo', { text: 'hello' })).toEqual({
      content: [{ type: 'text', text: 'hello' }],
    });
    expect(textOf(await connection.callTool('add', { a: 2, b: 40 }))).toBe('42');
    expect(await connection.callTool('structured', {})).toEqual({
      content: [{ type: 'text', text: '{"value":42}' }],
      structuredContent: { value: 42 },
    });
    expect(await connection.callTool('no_such_tool', {})).toEqual({
      content: [{ type: 'text', text: 'unknown tool no_such_tool' }],
      isError: true,
    });
  });

  test('a tool that declares an outputSchema but sends no structuredContent still gets its content through', async () => {
    const connection = await harness.connect(stdioDefinition());
    const result = await connection.callTool('sloppy_structured', {});
    expect(result).toEqual({ content: [{ type: 'text', text: '{"value": "not even a number"}' }] });
  });

  test('a task-required tool runs as a task; a server that then does not create one answers with its error', async () => {
    const connection = await harness.connect(stdioDefinition());
    const error = await rejectionOf(connection.callTool('task_required', {}));
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('server');
    expect(error.message).toMatch(/^tools\/call task_required failed: /);
    expect(textOf(await connection.callTool('add', { a: 1, b: 1 }))).toBe('2');
  });

  test('reports progress notifications to onProgress', async () => {
    const connection = await harness.connect(stdioDefinition());
    const progress: unknown[] = [];
    const result = await connection.callTool(
      'progress',
      { steps: 3 },
      { onProgress: (p) => progress.push(p) },
    );
    expect(textOf(result)).toBe('done after 3 steps');
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
  });

  test('times out with kind timeout, sends the cancellation, and stays usable', async () => {
    const connection = await harness.connect(stdioDefinition());
    const error = await rejectionOf(connection.callTool('hang', {}, { timeoutMs: 200 }));
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/tools\/call hang on "fixture-stdio" timed out/);
    await vi.waitFor(async () => {
      const cancelled = JSON.parse(textOf(await connection.callTool('cancellations', {})));
      expect(cancelled).toEqual([{ tool: 'hang', reason: expect.stringMatching(/timed out/i) }]);
    });
  });

  test('progress resets the timeout when asked (and only then)', async () => {
    const connection = await harness.connect(stdioDefinition());
    // 12 steps 50 ms apart take ~600 ms, longer than the 400 ms timeout; each gap is far shorter.
    const args = { steps: 12, intervalMs: 50 };
    const result = await connection.callTool('progress', args, { timeoutMs: 400, onProgress: () => {} });
    expect(textOf(result)).toBe('done after 12 steps');
    const error = await rejectionOf(
      connection.callTool('progress', args, {
        timeoutMs: 400,
        onProgress: () => {},
        resetTimeoutOnProgress: false,
      }),
    );
    expect(error.kind).toBe('timeout');
  });

  test('aborting the signal cancels the call on the server (notifications/cancelled)', async () => {
    const connection = await harness.connect(stdioDefinition());
    const controller = new AbortController();
    const call = connection.callTool(
      'hang',
      {},
      {
        signal: controller.signal,
        onProgress: (p) => p.message === 'started' && controller.abort('user pressed Esc'),
      },
    );
    const error = await rejectionOf(call);
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('aborted');
    await vi.waitFor(async () => {
      const cancelled = JSON.parse(textOf(await connection.callTool('cancellations', {})));
      expect(cancelled).toEqual([{ tool: 'hang', reason: 'user pressed Esc' }]);
    });
    // An already-aborted signal never reaches the server.
    const early = await rejectionOf(
      connection.callTool('echo', { text: 'x' }, { signal: AbortSignal.abort() }),
    );
    expect(early.kind).toBe('aborted');
  });

  test('reads resources', async () => {
    const connection = await harness.connect(stdioDefinition());
    expect(await connection.readResource('fixture://doc/2')).toEqual({
      contents: [{ uri: 'fixture://doc/2', mimeType: 'text/plain', text: 'contents of fixture://doc/2' }],
    });
  });
});

describe('notifications and output', () => {
  test('tools/list_changed and resources/list_changed reach onEvent', async () => {
    const connection = await harness.connect(stdioDefinition(['--list-changed']));
    expect(connection.catalog.capabilities).toMatchObject({ tools: { listChanged: true } });
    const events = recordEvents(connection);
    expect(textOf(await connection.callTool('change_lists', {}))).toBe('added added_1');
    await vi.waitFor(() =>
      expect(events).toEqual([{ type: 'tools-changed' }, { type: 'resources-changed' }]),
    );
    expect((await connection.listTools()).map((tool) => tool.name)).toContain('added_1');
    expect((await connection.listResources()).map((resource) => resource.uri)).toContain('fixture://added/1');
  });

  test('a template added at runtime: resources/list_changed reaches onEvent and the new listing has it', async () => {
    const connection = await harness.connect(stdioDefinition(['--list-changed', '--templates']));
    const events = recordEvents(connection);
    expect(textOf(await connection.callTool('add_template', {}))).toBe('added added-template-1');
    await vi.waitFor(() => expect(events).toEqual([{ type: 'resources-changed' }]));
    expect((await connection.listResourceTemplates()).map((t) => t.uriTemplate)).toContain(
      'fixture://added-template/1/{item}',
    );
  });

  test('a chatty stderr is kept as a bounded tail and streamed to onStderr', async () => {
    const lines: string[] = [];
    const connection = await harness.connect(stdioDefinition(['--chatty-stderr', '300']), {
      onStderr: (line) => lines.push(line),
    });
    await vi.waitFor(() => expect(lines).toContain(`chatty stderr line 300 of 300: ${'x'.repeat(60)}`));
    expect(lines.filter((line) => line.startsWith('chatty stderr line'))).toHaveLength(300);
    const tail = connection.stderrTail();
    const tailLines = tail.split('\n');
    expect(tailLines.length).toBeLessThanOrEqual(40);
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(8 * 1024);
    expect(tail).not.toContain('chatty stderr line 1 of 300');
    const events = recordEvents(connection, true);
    await connection.callTool('echo', { text: 'x' });
    await vi.waitFor(() =>
      expect(events).toContainEqual({ type: 'stderr', line: 'chatty stderr: calling echo' }),
    );
    expect(connection.stderrTail().split('\n').at(-1)).toBe('chatty stderr: calling echo');
  });

  test('garbage on stdout is ignored and kept in the tail, the session works', async () => {
    const connection = await harness.connect(stdioDefinition(['--garbage-stdout']));
    expect(textOf(await connection.callTool('echo', { text: 'still fine' }))).toBe('still fine');
    const tail = connection.stderrTail();
    expect(tail).toContain('[stdout] Starting fixture server... (this is not JSON)');
    expect(tail).toContain('[stdout] {"looks": "like json", "but": "is not JSON-RPC"}');
    expect(tail).toContain('[stdout] >>> calling echo <<<');
  });
});

describe('close', () => {
  test('ends the server process, is idempotent, and later calls fail as closed', async () => {
    const connection = await harness.connect(stdioDefinition());
    const pid = connection.pid!;
    const events = recordEvents(connection);
    await Promise.all([connection.close(), connection.close()]);
    expect(isAlive(pid)).toBe(false);
    await connection.close();
    const error = await rejectionOf(connection.callTool('echo', { text: 'x' }));
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('closed');
    expect(events).toEqual([]); // an explicit close is not reported as a loss
  });
});
