// The fault matrix: {crash at start, crash mid-call, hang at initialize, hang in a call, garbage,
// 10 MB output, slow start, 401, 403, 404 session expiry, 500, 503, connection refused, server
// restart} × {lazy, eager, keep-alive} × {stdio, Streamable HTTP}, each cell a real session runtime
// with one real fixture server and short timeouts. Every call ends within its timeouts with an
// answer (an error that says what to do, or the result), the server actor reaches the documented
// state, and no process of the cell survives the session. Faults that only one transport has
// (401/403/404/5xx/refused are HTTP answers; a stdio server has no status codes) appear once;
// "crash at start" over HTTP is "connection refused" (nothing listens).

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import type { Runtime } from '../../src/actors/session-actor.ts';
import type { Lifecycle, ServerDefinition } from '../../src/config/types.ts';
import { serverStateOf } from '../../src/machines/server.machine.ts';
import type { ServerState } from '../../src/ports/server-state.ts';
import type { ToolResult } from '../../src/tools/executor.ts';
import { allProcesses, type HttpFixture, startHttpFixture, stdioFixture } from '../fixtures/servers/spawn.ts';
import { definition } from '../support/config.ts';
import { resultText, startRuntime } from '../support/runtime.ts';

/** Short timeouts for the cells whose fault is waiting on them (hangs). */
const SHORT_MS = 1_500;
/** Everywhere else: room for a loaded machine, so only the fault decides the outcome. */
const ROOMY_MS = 15_000;
const LIFECYCLES: Lifecycle[] = ['lazy', 'eager', 'keep-alive'];

type Outcome = { ok: true; check?: (text: string) => void } | { ok: false; says: RegExp };

interface Cell {
  fault: string;
  transport: 'stdio' | 'http';
  flags?: string[];
  /** HTTP: nothing listens on the port. */
  refused?: boolean;
  tool: string;
  args?: Record<string, unknown>;
  outcome: Outcome;
  /** The documented state after the call, per lifecycle. */
  states: (lifecycle: Lifecycle) => ServerState[];
  /** Something to do before the call (restart the server, expire the session, …). */
  before?: (ctx: CellContext) => Promise<void>;
  /** A second call that must succeed (the server recovers). */
  recovers?: boolean;
  /** The fault is a hang at startup or in the call: the short timeout of that phase ends it. */
  hangs?: 'startup' | 'call';
}

interface CellContext {
  runtime: Runtime;
  name: string;
  http?: HttpFixture;
  restartHttp(): Promise<void>;
}

const connectFailed = (l: Lifecycle): ServerState[] =>
  l === 'lazy' ? ['backoff', 'closed'] : ['backoff', 'connecting'];
const stays = (): ServerState[] => ['connected'];
const lost = (l: Lifecycle): ServerState[] =>
  l === 'lazy' ? ['closed', 'connecting', 'connected'] : ['backoff', 'connecting', 'connected'];
const RETRY_HINT = /(tried again in|next automatic try is in) \d+ s; \/mcp reconnect \S+ tries now/;
const spilled = (text: string) => {
  expect(text.length).toBeLessThan(200_000);
  expect(text).toMatch(/\/pi-mcp-/);
};

const CELLS: Cell[] = [
  // stdio
  {
    fault: 'crash at start',
    transport: 'stdio',
    flags: ['--crash-on-start'],
    tool: 'echo',
    outcome: { ok: false, says: /failed to connect: .*exited with code 3/ },
    states: connectFailed,
  },
  {
    fault: 'crash mid-call',
    transport: 'stdio',
    tool: 'crash',
    outcome: { ok: false, says: /dropped the connection during .*crash.*retry once/ },
    states: lost,
    recovers: true,
  },
  {
    fault: 'hang at initialize',
    transport: 'stdio',
    flags: ['--hang-initialize'],
    hangs: 'startup',
    tool: 'echo',
    outcome: { ok: false, says: /did not finish starting within 1\.5 s/ },
    states: connectFailed,
  },
  {
    fault: 'hang in a call',
    transport: 'stdio',
    tool: 'hang',
    hangs: 'call',
    outcome: { ok: false, says: /got no answer within \d+(\.\d)? (ms|s) and was cancelled/ },
    states: stays,
  },
  {
    fault: 'garbage on stdout',
    transport: 'stdio',
    flags: ['--garbage-stdout'],
    tool: 'echo',
    args: { text: 'through the garbage' },
    outcome: { ok: true, check: (t) => expect(t).toBe('through the garbage') },
    states: stays,
  },
  {
    fault: '10 MB output',
    transport: 'stdio',
    flags: ['--reliability-tools'],
    tool: 'big_output',
    outcome: { ok: true, check: spilled },
    states: stays,
  },
  {
    fault: 'slow start',
    transport: 'stdio',
    flags: ['--slow-start-ms', '400'],
    tool: 'echo',
    args: { text: 'late but fine' },
    outcome: { ok: true, check: (t) => expect(t).toBe('late but fine') },
    states: stays,
  },
  {
    fault: 'server restart',
    transport: 'stdio',
    tool: 'echo',
    args: { text: 'after restart' },
    before: async ({ runtime, name }) => {
      await call(runtime, name, 'echo', { text: 'before' });
      const pid = runtime.servers()[name]!.getSnapshot().context.connection?.pid;
      if (pid) process.kill(pid, 'SIGKILL');
      await waitFor(runtime.servers()[name]!, (s) => !s.matches('connected'), { timeout: 10_000 });
      await settled(runtime, name);
    },
    outcome: { ok: true, check: (t) => expect(t).toBe('after restart') },
    states: stays,
  },
  // Streamable HTTP
  {
    fault: 'crash at start / connection refused',
    transport: 'http',
    refused: true,
    tool: 'echo',
    outcome: { ok: false, says: /failed to connect: Cannot reach .*(ECONNREFUSED|refused|fetch failed)/ },
    states: connectFailed,
  },
  {
    fault: 'crash mid-call',
    transport: 'http',
    tool: 'crash',
    outcome: { ok: false, says: /crash (failed|timed out)|dropped the connection|retry/ },
    states: (l) => (l === 'lazy' ? ['connected', 'closed'] : ['connected', 'backoff', 'connecting']),
  },
  {
    fault: 'hang at initialize',
    transport: 'http',
    flags: ['--slow-initialize-ms', '60000'],
    hangs: 'startup',
    tool: 'echo',
    outcome: { ok: false, says: /did not finish starting within 1\.5 s/ },
    states: connectFailed,
  },
  {
    fault: 'hang in a call',
    transport: 'http',
    tool: 'hang',
    hangs: 'call',
    outcome: { ok: false, says: /got no answer within \d+(\.\d)? (ms|s) and was cancelled/ },
    states: stays,
  },
  {
    fault: 'garbage body',
    transport: 'http',
    flags: ['--garbage-body'],
    tool: 'echo',
    outcome: { ok: false, says: /failed to connect/ },
    states: connectFailed,
  },
  {
    fault: '10 MB output',
    transport: 'http',
    flags: ['--reliability-tools'],
    tool: 'big_output',
    outcome: { ok: true, check: spilled },
    states: stays,
  },
  {
    fault: 'slow start',
    transport: 'http',
    flags: ['--slow-initialize-ms', '400'],
    tool: 'echo',
    args: { text: 'late but fine' },
    outcome: { ok: true, check: (t) => expect(t).toBe('late but fine') },
    states: stays,
  },
  {
    fault: '401',
    transport: 'http',
    flags: ['--require-token', 'right-token'],
    tool: 'echo',
    outcome: { ok: false, says: /needs authentication\. Run \/mcp-auth \S+, then try again/ },
    states: () => ['needsAuth'],
  },
  ...[403, 500, 503].map(
    (status): Cell => ({
      fault: String(status),
      transport: 'http',
      flags: ['--status', String(status)],
      tool: 'echo',
      outcome: { ok: false, says: new RegExp(`failed to connect: .*HTTP ${status}`) },
      states: connectFailed,
    }),
  ),
  {
    fault: '404 session expiry',
    transport: 'http',
    tool: 'echo',
    args: { text: 'new session' },
    before: async ({ runtime, name }) => {
      await call(runtime, name, 'forget_sessions');
    },
    outcome: { ok: true, check: (t) => expect(t).toBe('new session') },
    states: stays,
  },
  {
    fault: 'server restart',
    transport: 'http',
    tool: 'echo',
    args: { text: 'after restart' },
    before: async ({ runtime, name, restartHttp }) => {
      await call(runtime, name, 'echo', { text: 'before' });
      await restartHttp();
    },
    outcome: { ok: true, check: (t) => expect(t).toBe('after restart') },
    states: stays,
  },
];

function call(runtime: Runtime, server: string, tool: string, args: Record<string, unknown> = {}) {
  return runtime.callTool(`${server}__${tool}`, args);
}

/** Waits until an eager/keep-alive server has finished reconnecting (lazy ones reconnect on the call). */
async function settled(runtime: Runtime, name: string): Promise<void> {
  const ref = runtime.servers()[name]!;
  if (ref.getSnapshot().context.lifecycle === 'lazy') return;
  await waitFor(ref, (s) => s.matches('connected'), { timeout: 15_000 });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/** Processes of this cell: stdio servers carry the cell's name in their argv. */
const cellProcesses = (name: string) =>
  allProcesses().filter((p) => p.command.includes(`--name ${name}`) && p.state !== 'Z');

let counter = 0;

describe.concurrent('fault matrix', () => {
  for (const cell of CELLS) {
    for (const lifecycle of LIFECYCLES) {
      it(`${cell.transport} × ${lifecycle} × ${cell.fault}`, async () => {
        const name = `cell${++counter}_${process.pid}`;
        const tempDir = mkdtempSync(join(tmpdir(), 'pi-mcp-fault-'));
        let http: HttpFixture | undefined;
        let port = 0;
        const startupTimeoutMs = cell.hangs === 'startup' ? SHORT_MS : ROOMY_MS;
        const requestTimeoutMs = cell.hangs === 'call' ? SHORT_MS : ROOMY_MS;
        const common: Partial<ServerDefinition> = {
          name,
          lifecycle,
          startupTimeoutMs,
          requestTimeoutMs,
          idleTimeoutMs: 0,
        };
        let def: ServerDefinition;
        if (cell.transport === 'stdio') {
          def = definition({
            ...common,
            transport: 'stdio',
            ...stdioFixture(['--name', name, ...(cell.flags ?? [])]),
          });
        } else if (cell.refused) {
          port = await freePort();
          def = definition({ ...common, transport: 'http', url: `http://127.0.0.1:${port}/mcp` });
        } else {
          http = await startHttpFixture(cell.flags ?? []);
          port = http.port;
          def = definition({ ...common, transport: 'http', url: http.url });
        }
        const runtime = await startRuntime([def], { tempDir });
        const context: CellContext = {
          runtime,
          name,
          ...(http ? { http } : {}),
          async restartHttp() {
            await http!.stop();
            http = await startHttpFixture(cell.flags ?? [], { port });
          },
        };
        try {
          await cell.before?.(context);
          const started = performance.now();
          const result: ToolResult = await call(runtime, name, cell.tool, cell.args);
          // Within its timeouts: at most a startup and a request timeout, plus room for a loaded machine.
          expect(performance.now() - started).toBeLessThan(startupTimeoutMs + requestTimeoutMs + 5_000);
          const text = resultText(result);
          if (cell.outcome.ok) {
            expect(result.isError, text).toBeFalsy();
            cell.outcome.check?.(text);
          } else {
            expect(result.isError).toBe(true);
            expect(text).toMatch(cell.outcome.says);
            // What to do is part of every failure: retry, reconnect, sign in or change the request.
            expect(text).toMatch(/try again|retry|\/mcp|reconnect|smaller/i);
            if (/failed to connect/.test(text)) expect(text).toMatch(RETRY_HINT);
          }
          const state = serverStateOf(runtime.servers()[name]!.getSnapshot());
          expect(cell.states(lifecycle)).toContain(state);
          if (cell.recovers) {
            await settled(runtime, name);
            const again = await call(runtime, name, 'echo', { text: 'recovered' });
            expect(resultText(again)).toBe('recovered');
          }
        } finally {
          await runtime.stop();
          runtime.dispose();
          await http?.stop();
          rmSync(tempDir, { recursive: true, force: true });
        }
        await vi.waitFor(() => expect(cellProcesses(name)).toEqual([]), { timeout: 10_000, interval: 50 });
      }, 60_000);
    }
  }
});
