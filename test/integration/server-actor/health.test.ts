// Health checks against real servers: a keep-alive server that stops answering without closing its
// connection (SIGSTOP: the process, or the HTTP server, is frozen) is noticed by its ping, closed and
// reconnected; a healthy one answers its pings and stays connected.

import { describe, expect, it, vi } from 'vitest';
import { serverErrorText } from '../../../src/server-error-text.ts';
import { httpDefinition, stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { isAlive } from '../../fixtures/servers/spawn.ts';
import { spawnedServerPid, useServerActorHarness } from './harness.ts';

const harness = useServerActorHarness();
const FAST = { lifecycle: 'keep-alive' as const, healthCheckMs: 200, startupTimeoutMs: 2_000 };

describe('health checks on real servers', () => {
  it('stdio: a frozen server is noticed by its ping, its process ended, and a new one started', async () => {
    const server = harness.start(stdioDefinition([], FAST));
    server.actor.send({ type: 'CONNECT' });
    await server.reach('connected');
    const frozen = await spawnedServerPid();
    process.kill(frozen, 'SIGSTOP');
    const lost = await server.reach('backoff');
    expect(serverErrorText(lost.context.lastError)).toBe(
      'connection lost: no answer to a health check within 200 ms',
    );
    await server.reach('connected');
    expect(server.pids).toHaveLength(2);
    await vi.waitFor(() => expect(isAlive(frozen)).toBe(false), { timeout: 10_000 });
  });

  it('HTTP: pings go over the wire while healthy; a frozen server is lost, and found again when it thaws', async () => {
    const fixture = await harness.http();
    const server = harness.start(httpDefinition(fixture.url, FAST));
    server.actor.send({ type: 'CONNECT' });
    await server.reach('connected');
    await vi.waitFor(() =>
      expect(fixture.requests().filter((r) => r.includes('ping')).length).toBeGreaterThan(2),
    );
    expect(server.state()).toBe('connected');
    process.kill(fixture.pid, 'SIGSTOP');
    try {
      const lost = await server.reach('backoff');
      expect(serverErrorText(lost.context.lastError)).toMatch(
        /^connection lost: no answer to a health check/,
      );
    } finally {
      process.kill(fixture.pid, 'SIGCONT');
    }
    await server.reach('connected');
    expect(server.states).toEqual(
      expect.arrayContaining(['connected', 'backoff', 'connecting', 'connected']),
    );
  });
});
