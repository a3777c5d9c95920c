// Tiny fakes for server machine tests: a Connection that records close() and lets the test emit
// transport events, and a Connector whose attempts the test settles by hand. Everything else is the
// real server logic (src/actors/server-actor.ts) driven by a SimulatedClock.

import { vi } from 'vitest';
import { assign, createActor, fromCallback, SimulatedClock, waitFor } from 'xstate';
import { serverLogic } from '../../src/actors/server-actor.ts';
import type { Lifecycle, ServerDefinition } from '../../src/config/types.ts';
import type { ConnectOptions, Connector, ServerInput } from '../../src/machines/server-types.ts';
import type { Connection, ConnectionEvent } from '../../src/ports/connection.ts';
import {
  type CallToolResult,
  ConnectError,
  type ConnectErrorKind,
  type PromptDescriptor,
  type ReadResourceResult,
  type ResourceDescriptor,
  type ResourceTemplateDescriptor,
  type ServerCatalog,
  type ToolDescriptor,
} from '../../src/ports/mcp.ts';
import { definition as baseDefinition } from '../support/config.ts';

export function definition(overrides: Partial<ServerDefinition> = {}): ServerDefinition {
  return baseDefinition({ name: 'demo', command: 'demo-server', ...overrides });
}

export function tool(name: string): ToolDescriptor {
  return { name, inputSchema: { type: 'object' } };
}

export class FakeConnection implements Connection {
  readonly catalog: ServerCatalog;
  closeCount = 0;
  /** How the next pings go: answered, rejected, or never answered (until aborted). */
  pingAnswer: 'answer' | 'fail' | 'hang' = 'answer';
  pings = 0;
  pingsAborted = 0;
  tools: ToolDescriptor[];
  resources: ResourceDescriptor[] = [];
  resourceTemplates: ResourceTemplateDescriptor[] = [];
  prompts: PromptDescriptor[] = [];
  private readonly listeners = new Set<(event: ConnectionEvent) => void>();
  private closing?: Promise<void>;

  constructor(tools: ToolDescriptor[] = [tool('echo')]) {
    this.tools = tools;
    this.catalog = {
      serverInfo: { name: 'fake', version: '1.0.0' },
      capabilities: { tools: { listChanged: true } },
      tools,
      resources: [],
      transport: 'stdio',
    };
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  emit(event: ConnectionEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }

  onEvent(listener: (event: ConnectionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async listTools(): Promise<ToolDescriptor[]> {
    return this.tools;
  }

  async listPrompts(): Promise<PromptDescriptor[]> {
    return this.prompts;
  }

  async getPrompt() {
    return { messages: [] };
  }

  async listResources(): Promise<ResourceDescriptor[]> {
    return this.resources;
  }

  async listResourceTemplates(): Promise<ResourceTemplateDescriptor[]> {
    return this.resourceTemplates;
  }

  async callTool(): Promise<CallToolResult> {
    return { content: [{ type: 'text', text: 'ok' }] };
  }

  async readResource(): Promise<ReadResourceResult> {
    return { contents: [] };
  }

  stderrTail(): string {
    return '';
  }

  ping(signal?: AbortSignal): Promise<void> {
    this.pings++;
    if (this.pingAnswer === 'answer') return Promise.resolve();
    if (this.pingAnswer === 'fail') return Promise.reject(new Error('ping failed: EPIPE'));
    return new Promise((_, reject) =>
      signal?.addEventListener('abort', () => {
        this.pingsAborted++;
        reject(new Error('aborted'));
      }),
    );
  }

  /** Like the real one, a connection closes once however often it is asked (watcher cleanup, `closing`). */
  close(): Promise<void> {
    if (!this.closing) {
      this.closeCount++;
      this.closing = Promise.resolve();
    }
    return this.closing;
  }
}

/** A connection whose close takes until the test ends it (a process group that is slow to go). */
export class SlowClose extends FakeConnection {
  private end = () => {};
  private readonly ended = new Promise<void>((resolve) => {
    this.end = resolve;
  });
  finishClose(): void {
    this.end();
  }
  override close(): Promise<void> {
    void super.close();
    return this.ended;
  }
}

export interface Attempt {
  definition: ServerDefinition;
  options: ConnectOptions;
  /** Resolved, rejected or aborted. */
  readonly settled: boolean;
  /** Resolves the attempt with a new FakeConnection (or the one given). */
  succeed(connection?: FakeConnection): FakeConnection;
  fail(kind: ConnectErrorKind, message?: string, stderrTail?: string): void;
  /** Rejects the attempt with this error (a ConnectError with more than a kind and message). */
  failWith(error: ConnectError): void;
}

/** A Connector whose every attempt waits for the test; an aborted attempt rejects like the real one. */
export function scriptedConnector(): {
  connector: Connector;
  attempts: Attempt[];
  connections: FakeConnection[];
} {
  const attempts: Attempt[] = [];
  const connections: FakeConnection[] = [];
  const connector: Connector = (def, options) =>
    new Promise<Connection>((resolve, reject) => {
      let settled = false;
      options.signal.addEventListener(
        'abort',
        () => {
          settled = true;
          reject(new ConnectError('aborted', 'aborted'));
        },
        { once: true },
      );
      attempts.push({
        definition: def,
        options,
        get settled() {
          return settled;
        },
        succeed(connection = new FakeConnection()) {
          if (settled) throw new Error('this attempt is already settled');
          settled = true;
          connections.push(connection);
          resolve(connection);
          return connection;
        },
        fail(kind, message = `${kind} failure`, stderrTail) {
          this.failWith(new ConnectError(kind, message, stderrTail === undefined ? {} : { stderrTail }));
        },
        failWith(error) {
          if (settled) throw new Error('this attempt is already settled');
          settled = true;
          reject(error);
        },
      });
    });
  return { connector, attempts, connections };
}

const withJitter = new Map<number, typeof serverLogic>();

/** The real server logic with a fixed jitter (1 = always the ceiling) instead of Math.random. */
export function logicWithJitter(jitter: number): typeof serverLogic {
  let logic = withJitter.get(jitter);
  if (!logic) {
    logic = serverLogic.provide({
      actions: { drawJitter: assign({ jitter }) },
      // Machine tests never watch a real sign-in store.
      actors: { watchTokens: fromCallback(() => () => {}) },
    });
    withJitter.set(jitter, logic);
  }
  return logic;
}

/**
 * Starts the real server logic with a scripted connector and a SimulatedClock. Date.now is faked
 * (only Date: real timers keep running) so display fields like nextRetryAt are exact.
 */
export function startServer(
  options: {
    lifecycle?: Lifecycle;
    definition?: Partial<ServerDefinition>;
    jitter?: number | 'random';
  } & Partial<Pick<ServerInput, 'parentRef' | 'knownCatalog'>> = {},
) {
  vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
  const { connector, attempts, connections } = scriptedConnector();
  const clock = new SimulatedClock();
  const input: ServerInput = {
    definition: definition({ lifecycle: options.lifecycle ?? 'lazy', ...options.definition }),
    generation: 7,
    connector,
  };
  if (options.parentRef) input.parentRef = options.parentRef;
  if (options.knownCatalog) input.knownCatalog = options.knownCatalog;
  const logic =
    options.jitter === 'random'
      ? serverLogic.provide({ actors: { watchTokens: fromCallback(() => () => {}) } })
      : logicWithJitter(options.jitter ?? 1);
  const actor = createActor(logic, { clock, input }).start();
  return {
    actor,
    clock,
    attempts,
    connections,
    advance(ms: number) {
      vi.setSystemTime(Date.now() + ms);
      clock.increment(ms);
    },
    current(): Attempt {
      const attempt = attempts.at(-1);
      if (!attempt) throw new Error('no connect attempt was made');
      return attempt;
    },
    /** Resolves once the server has left `closing` (the connection's close has ended). */
    async closeEnded(): Promise<void> {
      await waitFor(actor, (s) => !s.hasTag('closing'));
    },
    /** Every connection except the live one was closed exactly once; the live one is open. */
    closedExactlyOnceExceptLive(): boolean {
      const live = actor.getSnapshot().context.connection;
      return connections.every((c) => (c === live ? c.closeCount === 0 : c.closeCount === 1));
    },
  };
}

export type Harness = ReturnType<typeof startServer>;
