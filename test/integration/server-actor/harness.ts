// Shared setup for the server actor's integration tests: the REAL actor (serverLogic + connectMcp)
// against the fixture servers. Each started actor records the top-level states it visits (from its
// snapshots) and what its parent would be told (a stand-in parent actor collects SERVER.STATUS and
// SERVER.CATALOG). After every test the actors are stopped, then the HTTP fixtures, and then the test
// process must have no child processes left and no stdio server's process group may survive (/proc).

import { afterEach, expect, vi } from 'vitest';
import { type AnyActorRef, assign, createActor, fromCallback, type SnapshotFrom, waitFor } from 'xstate';
import { serverLogic } from '../../../src/actors/server-actor.ts';
import { connectMcp } from '../../../src/adapters/mcp/index.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import { serverStateOf } from '../../../src/machines/server.machine.ts';
import type { Connector } from '../../../src/machines/server-types.ts';
import type { CallOptions } from '../../../src/ports/connection.ts';
import type { CallToolResult } from '../../../src/ports/mcp.ts';
import type {
  ServerCatalogUpdate,
  ServerState,
  ServerStatus,
  ServerToParentEvent,
} from '../../../src/ports/server-state.ts';
import { ensureConnected } from '../../../src/session/ensure-connected.ts';
import {
  type HttpFixture,
  listDescendants,
  type ProcInfo,
  processesInGroup,
  startHttpFixture,
} from '../../fixtures/servers/spawn.ts';

const WAIT_MS = 15_000;

/**
 * The real server logic with a fixed jitter instead of Math.random: the first backoff waits
 * `jitter · 1 s`, the second `jitter · 2 s`, ... (the machine's own full-jitter formula). A small
 * jitter keeps real-time backoff expiry fast without changing how the delay is computed.
 */
export function logicWithJitter(jitter: number): typeof serverLogic {
  return serverLogic.provide({ actions: { drawJitter: assign({ jitter }) } });
}

/** 0.05 → first backoff 50 ms, second 100 ms. */
export const FAST_BACKOFF = logicWithJitter(0.05);

export type ServerActor = ReturnType<typeof createActor<typeof serverLogic>>;

export interface RecordedServer {
  actor: ServerActor;
  /** Top-level states in the order visited (consecutive repeats collapsed), starting with `init`. */
  states: ServerState[];
  /** The states the parent was told about (SERVER.STATUS), in order. */
  told: ServerState[];
  /** SERVER.CATALOG events the parent received. */
  catalogs: ServerCatalogUpdate[];
  /** Pids of the stdio servers this actor was connected to. */
  pids: number[];
  /** Resolves once the actor's top-level state is `state`. */
  reach(state: ServerState, timeout?: number): Promise<SnapshotFrom<typeof serverLogic>>;
  state(): ServerState;
}

/** A stand-in for the supervisor: records what a server actor sends to its parent. */
function recordingParent(sink: ServerToParentEvent[]): AnyActorRef {
  return createActor(
    fromCallback<ServerToParentEvent>(({ receive }) => {
      receive((event) => sink.push(event));
    }),
  ).start();
}

export function useServerActorHarness() {
  const actors: AnyActorRef[] = [];
  const fixtures: HttpFixture[] = [];
  /** Stdio servers run in their own process group: orphaned grandchildren keep it. */
  const groups = new Set<number>();

  afterEach(async () => {
    for (const actor of actors.splice(0).reverse()) actor.stop();
    for (const fixture of fixtures.splice(0)) await fixture.stop();
    await vi.waitFor(() => expect(listDescendants(process.pid)).toEqual([]), {
      timeout: 10_000,
      interval: 20,
    });
    for (const pgid of groups) expect(processesInGroup(pgid)).toEqual([]);
    groups.clear();
  });

  return {
    /** Creates and starts the real server actor for `definition`, recording what it does. */
    start(
      definition: ServerDefinition,
      options: { logic?: typeof serverLogic; connector?: Connector } = {},
    ): RecordedServer {
      const fromParent: ServerToParentEvent[] = [];
      const parentRef = recordingParent(fromParent);
      const actor = createActor(options.logic ?? FAST_BACKOFF, {
        input: { definition, generation: 1, connector: options.connector ?? connectMcp, parentRef },
      });
      const states: ServerState[] = [serverStateOf(actor.getSnapshot())];
      const pids: number[] = [];
      actor.subscribe((snapshot) => {
        const state = serverStateOf(snapshot);
        if (states.at(-1) !== state) states.push(state);
        const pid = snapshot.context.connection?.pid;
        if (pid !== undefined && !pids.includes(pid)) {
          pids.push(pid);
          groups.add(pid);
        }
      });
      actors.push(parentRef, actor);
      actor.start();
      return {
        actor,
        states,
        pids,
        get told() {
          return fromParent
            .filter(
              (event): event is { type: 'SERVER.STATUS' } & ServerStatus => event.type === 'SERVER.STATUS',
            )
            .map((event) => event.state);
        },
        get catalogs() {
          return fromParent
            .filter(
              (event): event is { type: 'SERVER.CATALOG' } & ServerCatalogUpdate =>
                event.type === 'SERVER.CATALOG',
            )
            .map(({ type: _, ...update }) => update);
        },
        reach: (state, timeout = WAIT_MS) =>
          waitFor(actor, (snapshot) => serverStateOf(snapshot) === state, { timeout }),
        state: () => serverStateOf(actor.getSnapshot()),
      };
    },

    /** Starts an HTTP fixture on 127.0.0.1 that is stopped after the test. */
    async http(flags: string[] = []): Promise<HttpFixture> {
      const fixture = await startHttpFixture(flags);
      fixtures.push(fixture);
      return fixture;
    },

    /** Registers a stdio server's process group for the after-test check. */
    watchGroup(pgid: number): void {
      groups.add(pgid);
    },
  };
}

/** The stdio fixture servers this test process is running right now. */
export function runningStdioServers(): ProcInfo[] {
  return listDescendants(process.pid).filter((proc) => proc.command.includes('stdio-server'));
}

/** Waits until exactly one stdio fixture server runs and returns its pid. */
export async function spawnedServerPid(): Promise<number> {
  let pid = 0;
  await vi.waitFor(
    () => {
      const running = runningStdioServers();
      expect(running).toHaveLength(1);
      pid = running[0]!.pid;
    },
    { timeout: WAIT_MS, interval: 10 },
  );
  return pid;
}

/**
 * Calls a tool the way the tool executor does: ensureConnected, then the call bracketed by
 * CALL_STARTED / CALL_FINISHED. Rejects with the unavailable-error or the connection's CallError.
 */
export async function callTool(
  server: RecordedServer,
  name: string,
  args: Record<string, unknown> = {},
  options: CallOptions = {},
): Promise<CallToolResult> {
  const ready = await ensureConnected(server.actor);
  if (!ready.ok) throw Object.assign(new Error(ready.error.message), { unavailable: ready.error });
  server.actor.send({ type: 'CALL_STARTED' });
  try {
    return await ready.connection.callTool(name, args, options);
  } finally {
    server.actor.send({ type: 'CALL_FINISHED' });
  }
}

export function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((item) => (item.type === 'text' ? item.text : `[${item.type}]`)).join('\n');
}

/** The promise's rejection, for asserting on typed errors. */
export async function rejectionOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
