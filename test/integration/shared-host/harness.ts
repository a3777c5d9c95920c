// Shared-host tests: a temp agent dir (so the host's socket is private to the test), the real host
// process started on demand by the sessions' connectors, and cleanup by pid.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, vi } from 'vitest';
import { type SnapshotFrom, waitFor } from 'xstate';
import type { Runtime } from '../../../src/actors/session-actor.ts';
import type { HostClient } from '../../../src/adapters/host/host-client.ts';
import { HostConnection } from '../../../src/adapters/host/host-connection.ts';
import { sharedHostConnector } from '../../../src/adapters/host/shared-connector.ts';
import { openHost, socketOf } from '../../../src/adapters/host/start-host.ts';
import { connectMcp } from '../../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../../src/adapters/pi/bridge.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import { buildIdentity } from '../../../src/host/build-identity.ts';
import type { HostStatus } from '../../../src/host/protocol.ts';
import type { ConnectOptions } from '../../../src/machines/server-types.ts';
import type { Connection } from '../../../src/ports/connection.ts';
import type { HostRequests } from '../../../src/ports/mcp.ts';
import { isAlive } from '../../fixtures/servers/spawn.ts';
import { RecordingPi } from '../../support/recording-pi.ts';

// A host that started late (the loser of a race, spawned under load) idles out soon instead of in 10 min.
process.env.PI_MCP_ACTORS_HOST_IDLE_MS ??= '5000';

export interface Session {
  connect(
    definition: ServerDefinition,
    host?: HostRequests,
    project?: string,
    options?: Partial<Pick<ConnectOptions, 'signal' | 'onHostState'>>,
  ): Promise<Connection>;
  /** Connections that ran in the session (the host could not be used). */
  inSession: number;
}

export class HostWorld {
  readonly root = mkdtempSync(join(tmpdir(), 'pmh-'));
  readonly agentDir = join(this.root, 'a');
  readonly project = join(this.root, 'p');
  private readonly hostPids = new Set<number>();
  private readonly connections: Connection[] = [];
  private readonly bridges: PiBridge[] = [];

  constructor(readonly build = buildIdentity()) {
    mkdirSync(this.agentDir, { recursive: true });
    mkdirSync(this.project, { recursive: true });
  }

  get socket(): string {
    return socketOf({ agentDir: this.agentDir, build: this.build });
  }

  /** A session: its own line to the host (as one Pi runtime has). */
  session(label = 'test session'): Session {
    const session: Session = {
      inSession: 0,
      connect: async (definition, host, project = this.project, given) => {
        const options: ConnectOptions = {
          signal: given?.signal ?? new AbortController().signal,
          ...(host ? { host } : {}),
          ...(given?.onHostState ? { onHostState: given.onHostState } : {}),
        };
        const connection = await connectorFor(project)(definition, options);
        this.connections.push(connection);
        if (connection instanceof HostConnection) {
          const status = await this.status();
          if (status) this.hostPids.add(status.pid);
        }
        return connection;
      },
    };
    const connectorFor = sharedHostConnector(
      { agentDir: this.agentDir, build: this.build, label },
      (definition, options) => {
        session.inSession++;
        return connectMcp(definition, options);
      },
    );
    return session;
  }

  /**
   * A Pi session on this world's agent dir and project: the real bridge over a RecordingPi, started,
   * and returned once `ready` holds of its runtime. Stopped when the world is disposed.
   */
  async piSession(
    ready: (snapshot: SnapshotFrom<Runtime['actor']>) => boolean,
    env: Record<string, string> = {},
  ): Promise<{ pi: RecordingPi; runtime: Runtime }> {
    const pi = new RecordingPi(this.project);
    const bridge = bridgePi(pi, {
      connector: connectMcp,
      env: { PI_CODING_AGENT_DIR: this.agentDir, ...env },
      homeDir: this.root,
    });
    this.bridges.push(bridge);
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, ready, { timeout: 30_000 });
    return { pi, runtime };
  }

  /** The host's status, or undefined when none answers. */
  async status(): Promise<HostStatus | undefined> {
    let client: HostClient;
    try {
      client = await openHost({ agentDir: this.agentDir, build: this.build, label: 'pi-mcp-actors host' });
    } catch {
      return undefined;
    }
    try {
      const status = await client.status();
      this.hostPids.add(status.pid);
      return status;
    } finally {
      client.close();
    }
  }

  remember(pid: number): void {
    this.hostPids.add(pid);
  }

  async dispose(): Promise<void> {
    for (const bridge of this.bridges.splice(0)) {
      const runtime = await bridge.runtime();
      await runtime.stop();
      runtime.dispose();
    }
    await Promise.allSettled(this.connections.splice(0).map((c) => c.close()));
    for (const pid of this.hostPids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {}
    }
    await vi.waitFor(() => {
      for (const pid of this.hostPids) if (isAlive(pid)) throw new Error(`host ${pid} still running`);
    }, 10_000);
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** vi.waitFor with room for a loaded machine (the host and its servers are real processes). */
export function eventually<T>(check: () => T | Promise<T>, timeout = 20_000): Promise<T> {
  return vi.waitFor(check, timeout);
}

/** A Pi session is ready once the server `name` has listed its tools. */
export const listed =
  (name: string) =>
  (snapshot: SnapshotFrom<Runtime['actor']>): boolean =>
    (snapshot.context.catalogs[name]?.tools.length ?? 0) > 0;

/** Sessions not counted by `pi-mcp-actors host` (the status probe is a client too). */
export function sessionsOf(status: HostStatus | undefined): HostStatus['clients'] {
  return (status?.clients ?? []).filter((c) => c.label !== 'pi-mcp-actors host');
}

/** A fresh world for each test of the file, disposed after it (its host stopped by pid, its folder removed). */
export function useHostWorld(): () => HostWorld {
  let world: HostWorld | undefined;
  beforeEach(() => {
    world = new HostWorld();
  });
  afterEach(async () => {
    await world?.dispose();
  });
  return () => world!;
}

/** The text of a tool result. */
export const textOf = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('');
