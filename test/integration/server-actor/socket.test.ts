// The real server actor on a `socket` server (an SDK McpServer on a real Unix socket): a lost socket
// takes the path of a crashed process (keep-alive: backoff, retries naming the socket, connected again
// once a server listens there again).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { serverErrorText } from '../../../src/server-error-text.ts';
import { ensureConnected } from '../../../src/session/ensure-connected.ts';
import { serverDefinition } from '../../fixtures/servers/definitions.ts';
import { startSocketFixture } from '../../fixtures/servers/spawn.ts';
import { useServerActorHarness } from './harness.ts';

const harness = useServerActorHarness();
const cleanups: Array<() => Promise<unknown>> = [];

// Registered after the harness: runs first (hooks run as a stack), so servers are gone before its check.
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('keep-alive: a lost socket goes to backoff like a crashed process, then reconnects to the restarted server', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-sock-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'memory.sock');
  const first = await startSocketFixture(path);
  cleanups.push(() => first.stop());
  const server = harness.start(
    serverDefinition({ name: 'memory', transport: 'socket', socket: path, lifecycle: 'keep-alive' }),
  );
  expect((await ensureConnected(server.actor)).ok).toBe(true);

  await first.stop();
  await server.reach('backoff');
  expect(
    server.actor.getSnapshot().context.lastError &&
      serverErrorText(server.actor.getSnapshot().context.lastError),
  ).toBe(`connection lost: the socket ${path} closed`);
  // While nothing listens, each retry fails with the socket named and goes back to backoff.
  await vi.waitFor(() =>
    expect(server.states.filter((state) => state === 'backoff').length).toBeGreaterThan(1),
  );
  expect(
    server.actor.getSnapshot().context.lastError &&
      serverErrorText(server.actor.getSnapshot().context.lastError),
  ).toContain(`socket ${path}`);

  const second = await startSocketFixture(path);
  cleanups.push(() => second.stop());
  await server.reach('connected', 15_000);
  expect(server.states.slice(0, 5)).toEqual(['init', 'connecting', 'connected', 'closing', 'backoff']);
  expect(server.actor.getSnapshot().context.attempt).toBe(0);
});
