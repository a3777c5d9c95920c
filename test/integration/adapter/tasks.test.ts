// Tasks over real servers, both protocols: the 2026-07-28 Tasks extension (`io.modelcontextprotocol/tasks`,
// the modern fixture's `research` tool) and 2025-11-25 tasks (server-everything's task-required
// `simulate-research-query`). A task's status messages are the call's progress, aborting the call
// cancels the task on the server, and a poll whose HTTP stream is cut mid-way is asked again: the call
// still returns the task's result.

import { describe, expect, test, vi } from 'vitest';
import { CallError } from '../../../src/adapters/mcp/index.ts';
import { httpDefinition, serverDefinition } from '../../fixtures/servers/definitions.ts';
import {
  modernStdioFixture,
  startEverythingHttp,
  startModernHttpFixture,
} from '../../fixtures/servers/spawn.ts';
import { startCuttingProxy } from '../../support/cutting-proxy.ts';
import { rejectionOf, textOf, useAdapterHarness } from './harness.ts';

const harness = useAdapterHarness();
const DROPPED = 'the connection dropped; still following the task';

async function cutModern(cut: (method: string, n: number) => boolean) {
  const modern = await startModernHttpFixture();
  harness.defer(() => modern.stop());
  const proxy = await startCuttingProxy(modern.url, cut);
  harness.defer(() => proxy.stop());
  return { modern, proxy };
}

describe('2026-07-28: the Tasks extension', () => {
  test('a call the server makes a task: its status messages are progress, then the result', async () => {
    const connection = await harness.connect(
      serverDefinition({ name: 'modern', transport: 'stdio', ...modernStdioFixture() }),
    );
    const messages: string[] = [];
    const result = await connection.callTool(
      'research',
      { topic: 'actors', steps: 4, ms: 150 },
      { onProgress: (p) => messages.push(p.message ?? '') },
    );
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('researched actors in 4 steps');
    expect(messages[0]).toBe('step 0 of 4');
    expect(messages).toEqual(expect.arrayContaining(['step 1 of 4', 'step 2 of 4', 'step 3 of 4']));
    expect(messages.at(-1)).toBe('done');
    expect(connection.stderrTail()).toMatch(/TASK \S+ completed/);
    // Calls the server answers directly still do.
    expect(textOf(await connection.callTool('add', { a: 2, b: 3 }))).toBe('5');
  });

  test('aborting the call cancels the task on the server (tasks/cancel)', async () => {
    const connection = await harness.connect(
      serverDefinition({ name: 'modern', transport: 'stdio', ...modernStdioFixture() }),
    );
    const controller = new AbortController();
    const call = connection.callTool(
      'research',
      { topic: 'cancelled', steps: 100, ms: 100 },
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    const error = await rejectionOf(call);
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('aborted');
    await vi.waitFor(() => expect(connection.stderrTail()).toMatch(/TASK \S+ cancelled/));
    expect(connection.stderrTail()).not.toMatch(/TASK \S+ completed/);
    expect(textOf(await connection.callTool('add', { a: 1, b: 1 }))).toBe('2');
  });

  test('a task that stops for input asks the user once (the elicitation dialog) and goes on with the answer (tasks/update)', async () => {
    const asked: string[] = [];
    const connection = await harness.connect(
      serverDefinition({ name: 'modern', transport: 'stdio', ...modernStdioFixture() }),
      {
        host: {
          elicit: async (request) => {
            asked.push(request.message);
            return { action: 'accept', content: { goOn: true } };
          },
        },
      },
    );
    const result = await connection.callTool('research', {
      topic: 'questions',
      steps: 4,
      ms: 100,
      ask: true,
    });
    expect(textOf(result)).toBe('researched questions in 4 steps');
    // Polls saw the question more than once; the user was asked once.
    expect(asked).toEqual(['Go on after step 2?']);
    expect(connection.stderrTail()).toMatch(/TASK \S+ answered/);

    const declined = await harness.connect(
      serverDefinition({ name: 'modern', transport: 'stdio', ...modernStdioFixture() }),
      { host: { elicit: async () => ({ action: 'decline' }) } },
    );
    expect(textOf(await declined.callTool('research', { topic: 'no', steps: 4, ms: 50, ask: true }))).toBe(
      'stopped after step 2',
    );
  });

  test('a task asking for input nobody can answer here fails, saying so, and is cancelled', async () => {
    const connection = await harness.connect(
      serverDefinition({ name: 'modern', transport: 'stdio', ...modernStdioFixture() }),
    );
    const error = await rejectionOf(
      connection.callTool('research', { topic: 'alone', steps: 4, ms: 50, ask: true }),
    );
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('unsupported');
    expect(error.message).toMatch(/elicitation\/create/);
    await vi.waitFor(() => expect(connection.stderrTail()).toMatch(/TASK \S+ cancelled/));
  });

  test('HTTP: polls whose streams are cut are asked again, and the result arrives', async () => {
    const { modern, proxy } = await cutModern((method, n) => method === 'tasks/get' && (n === 2 || n === 3));
    const connection = await harness.connect(httpDefinition(proxy.url, { name: 'modern-cut' }));
    const messages: string[] = [];
    const result = await connection.callTool(
      'research',
      { topic: 'resilience', steps: 5, ms: 120 },
      { onProgress: (p) => messages.push(p.message ?? '') },
    );
    expect(textOf(result)).toBe('researched resilience in 5 steps');
    expect(messages).toContain(DROPPED);
    expect(proxy.methods().filter((method) => method === 'tasks/get').length).toBeGreaterThan(3);
    // The polls name their task in the Mcp-Name header (so a load balancer can route them).
    const poll = modern.requests().find((line) => line.startsWith('POST tasks/get '))!;
    expect(JSON.parse(poll.slice('POST tasks/get '.length))).toMatchObject({
      'mcp-method': 'tasks/get',
      'mcp-name': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  test('HTTP: the server unreachable for a while (connections refused) mid-task: polling goes on once it is back', async () => {
    const { proxy } = await cutModern(() => false);
    const connection = await harness.connect(httpDefinition(proxy.url, { name: 'modern-away' }));
    const events: string[] = [];
    connection.onEvent((event) => events.push(event.type));
    let paused: Promise<void> | undefined;
    let resumed: Promise<void> | undefined;
    const result = await connection.callTool(
      'research',
      { topic: 'patience', steps: 8, ms: 100 },
      {
        timeoutMs: 10_000,
        onProgress: (p) => {
          // The first status seen (polls may skip steps on a loaded machine) takes the server away.
          if (p.message?.startsWith('step ')) paused ??= proxy.pause();
          if (p.message === DROPPED) resumed ??= paused!.then(() => proxy.resume());
        },
      },
    );
    await resumed;
    expect(resumed).toBeDefined();
    expect(textOf(result)).toBe('researched patience in 8 steps');
    // The connection was not given up for the refused polls.
    expect(events).not.toContain('closed');
    expect(textOf(await connection.callTool('add', { a: 2, b: 2 }))).toBe('4');
  });

  test('HTTP: the connection lost mid-task (a request refused while the server was away): the task is polled by its id on the next connection and its result delivered', async () => {
    const { modern, proxy } = await cutModern(() => false);
    const connection = await harness.connect(httpDefinition(proxy.url, { name: 'modern-lost' }));
    const events: string[] = [];
    connection.onEvent((event) => events.push(event.type));
    let lost: Promise<void> | undefined;
    const result = await connection.callTool(
      'research',
      { topic: 'recovery', steps: 8, ms: 100 },
      {
        timeoutMs: 10_000,
        onProgress: (p) => {
          // The first status seen takes the server away; a request refused meanwhile loses the connection.
          if (!p.message?.startsWith('step ')) return;
          lost ??= (async () => {
            await proxy.pause();
            // (A pooled socket the proxy dropped fails first; a new one is refused.)
            for (let i = 0; i < 5 && !events.includes('closed'); i++)
              await connection.callTool('add', { a: 1, b: 2 }).catch(() => {});
            await proxy.resume();
          })();
        },
      },
    );
    await lost;
    expect(events).toContain('closed');
    expect(textOf(result)).toBe('researched recovery in 8 steps');
    // One task, created once and followed to its end (not started again).
    expect(modern.requests().filter((line) => line.startsWith('POST tools/call ')).length).toBe(1);
    expect(modern.stderr().match(/TASK \S+ completed/g)).toHaveLength(1);
    // A lost connection takes no new calls: the owner reconnects for those.
    expect((await rejectionOf(connection.callTool('add', { a: 1, b: 1 }))).kind).toBe('closed');
  });

  test('stdio: a server that exits mid-task: the call is told its task cannot be followed elsewhere', async () => {
    const connection = await harness.connect(
      serverDefinition({ name: 'modern', transport: 'stdio', ...modernStdioFixture() }),
    );
    const error = await rejectionOf(
      connection.callTool(
        'research',
        { topic: 'exit', steps: 100, ms: 100 },
        {
          onProgress: (p) => {
            if (p.message?.startsWith('step ')) process.kill(connection.pid!, 'SIGKILL');
          },
        },
      ),
    );
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('closed');
    expect(error.message).toMatch(
      /its task cannot be followed on another connection \(a stdio server's tasks end with its process\)/,
    );
  });

  test('HTTP: a call that is not a task still fails at once when its stream is cut (it may have run)', async () => {
    const { proxy } = await cutModern((method) => method === 'tools/call');
    const connection = await harness.connect(httpDefinition(proxy.url, { name: 'modern-plain' }));
    const started = Date.now();
    const error = await rejectionOf(
      connection.callTool('slow', { steps: 20, ms: 100 }, { timeoutMs: 10_000, onProgress: () => {} }),
    );
    expect(error).toBeInstanceOf(CallError);
    expect(error.kind).toBe('dropped');
    // Not waited out: the call's 10 s timeout and its 2 s of work are both far off.
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test('HTTP: a task whose server stays unreachable is given up after the call timeout, and cancelled', async () => {
    const { modern, proxy } = await cutModern((method) => method === 'tasks/get');
    const connection = await harness.connect(httpDefinition(proxy.url, { name: 'modern-gone' }));
    const started = Date.now();
    const error = await rejectionOf(
      connection.callTool('research', { topic: 'lost', steps: 100, ms: 100 }, { timeoutMs: 1_500 }),
    );
    expect(error).toBeInstanceOf(CallError);
    expect(['dropped', 'network']).toContain(error.kind);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_300);
    await vi.waitFor(() => expect(modern.stderr()).toMatch(/TASK \S+ cancelled/));
  });
});

describe('2025-11-25 tasks', () => {
  test('HTTP: tasks/get and tasks/result streams cut mid-task; the call still returns the result', async () => {
    const everything = await startEverythingHttp();
    harness.defer(() => everything.stop());
    const proxy = await startCuttingProxy(
      everything.url,
      (method, n) => (method === 'tasks/get' && n === 2) || (method === 'tasks/result' && n === 1),
    );
    harness.defer(() => proxy.stop());
    const connection = await harness.connect(httpDefinition(proxy.url, { name: 'everything' }));
    const messages: string[] = [];
    const result = await connection.callTool(
      'simulate-research-query',
      { topic: 'actors' },
      { onProgress: (p) => messages.push(p.message ?? '') },
    );
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/actors/);
    expect(messages).toContain(DROPPED);
    expect(proxy.methods().filter((method) => method === 'tasks/result').length).toBe(2);
  });
});
