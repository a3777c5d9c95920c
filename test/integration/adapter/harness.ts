// Shared setup for the adapter's integration tests: every connection and fixture a test opens is
// closed after it, and then the test process must have no child processes left (checked in /proc).

import { afterEach, expect, vi } from 'vitest';
import { connectMcp } from '../../../src/adapters/mcp/index.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import type { Connector } from '../../../src/machines/server-types.ts';
import type { Connection, ConnectionEvent } from '../../../src/ports/connection.ts';
import type { HostRequests } from '../../../src/ports/mcp.ts';
import type { SecretValues } from '../../../src/redact/index.ts';
import {
  type HttpFixture,
  listDescendants,
  processesInGroup,
  startHttpFixture,
} from '../../fixtures/servers/spawn.ts';

export function useAdapterHarness(connector: Connector = connectMcp) {
  const cleanups: Array<() => Promise<unknown>> = [];
  /** Process groups of stdio servers: orphaned grandchildren leave our tree but keep the group. */
  const groups: number[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
    await vi.waitFor(() => expect(listDescendants(process.pid)).toEqual([]), {
      timeout: 10_000,
      interval: 20,
    });
    for (const pgid of groups.splice(0)) expect(processesInGroup(pgid)).toEqual([]);
  });

  return {
    /** Connects and registers the connection for closing after the test. */
    async connect(
      definition: ServerDefinition,
      options: {
        signal?: AbortSignal;
        onStderr?: (line: string) => void;
        connector?: Connector;
        host?: HostRequests;
        /** Where the secrets learned while connecting go. */
        secrets?: SecretValues;
      } = {},
    ): Promise<Connection> {
      const connection = await (options.connector ?? connector)(definition, {
        signal: options.signal ?? new AbortController().signal,
        ...(options.onStderr ? { onStderr: options.onStderr } : {}),
        ...(options.host ? { host: options.host } : {}),
        ...(options.secrets ? { secrets: options.secrets } : {}),
      });
      cleanups.push(() => connection.close());
      if (connection.pid !== undefined) groups.push(connection.pid);
      return connection;
    },
    /** Starts an HTTP fixture that is stopped after the test. */
    async http(flags: string[] = [], options: { port?: number } = {}): Promise<HttpFixture> {
      const fixture = await startHttpFixture(flags, options);
      cleanups.push(() => fixture.stop());
      return fixture;
    },
    defer(cleanup: () => Promise<unknown>): void {
      cleanups.push(cleanup);
    },
  };
}

/** Records a connection's events (stderr lines left out unless asked for). */
export function recordEvents(connection: Connection, withStderr = false): ConnectionEvent[] {
  const events: ConnectionEvent[] = [];
  connection.onEvent((event) => {
    if (withStderr || event.type !== 'stderr') events.push(event);
  });
  return events;
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

export function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((item) => (item.type === 'text' ? item.text : `[${item.type}]`)).join('\n');
}
