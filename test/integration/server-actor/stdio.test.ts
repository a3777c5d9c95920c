// The real server actor against well-behaved stdio fixtures: connect on first use, calls through the
// connection, idle shutdown and reconnect, CLOSE, the catalog (pagination, list_changed), and what the
// actor keeps of a server's stderr and stray stdout.

import { describe, expect, it, vi } from 'vitest';
import { ensureConnected } from '../../../src/session/ensure-connected.ts';
import { stdioDefinition } from '../../fixtures/servers/definitions.ts';
import { isAlive } from '../../fixtures/servers/spawn.ts';
import { callTool, textOf, useServerActorHarness } from './harness.ts';

const harness = useServerActorHarness();

describe('stdio lifecycle', () => {
  it('connects on first use, calls through the connection, closes when idle, reconnects on next use', async () => {
    const server = harness.start(stdioDefinition([], { idleTimeoutMs: 300 }));
    expect(server.states).toEqual(['init']);

    const first = await ensureConnected(server.actor);
    expect(first.ok).toBe(true);
    expect(server.states).toEqual(['init', 'connecting', 'connected']);
    const { catalog } = server.actor.getSnapshot().context;
    expect(catalog).toMatchObject({ transport: 'stdio', serverInfo: { name: 'fixture-stdio' } });
    expect(catalog?.tools.map((tool) => tool.name)).toContain('echo');
    expect(server.catalogs).toHaveLength(1);
    const [pid] = server.pids;
    expect(isAlive(pid!)).toBe(true);

    expect(textOf(await callTool(server, 'echo', { text: 'through the actor' }))).toBe('through the actor');
    expect(server.actor.getSnapshot().context.inFlight).toBe(0);

    // Nothing in flight: the idle timer closes the server and its process.
    await server.reach('closed');
    expect(server.states).toEqual(['init', 'connecting', 'connected', 'closing', 'closed']);
    await vi.waitFor(() => expect(isAlive(pid!)).toBe(false));
    expect(server.actor.getSnapshot().context.lastError).toBeUndefined();

    const again = await ensureConnected(server.actor);
    expect(again.ok).toBe(true);
    expect(server.states).toEqual([
      'init',
      'connecting',
      'connected',
      'closing',
      'closed',
      'connecting',
      'connected',
    ]);
    expect(server.pids).toHaveLength(2);
    expect(server.pids[1]).not.toBe(pid);
    expect(server.told).toEqual(server.states.filter((state) => state !== 'closing'));
  });

  it('a call in flight holds off the idle shutdown', async () => {
    const server = harness.start(stdioDefinition([], { idleTimeoutMs: 150 }));
    const call = callTool(server, 'progress', { steps: 4, intervalMs: 100 });
    expect(textOf(await call)).toBe('done after 4 steps');
    // The call outlived the idle timeout by far, and the actor never left `connected` meanwhile.
    expect(server.states).toEqual(['init', 'connecting', 'connected']);
    await server.reach('closed');
  });

  it('CLOSE while connected ends the server process', async () => {
    const server = harness.start(stdioDefinition());
    expect((await ensureConnected(server.actor)).ok).toBe(true);
    const [pid] = server.pids;
    server.actor.send({ type: 'CLOSE' });
    await server.reach('closed');
    expect(server.states).toEqual(['init', 'connecting', 'connected', 'closing', 'closed']);
    await vi.waitFor(() => expect(isAlive(pid!)).toBe(false));
    expect(server.told).toEqual(server.states.filter((state) => state !== 'closing'));
  });

  it('garbage on stdout: still connects and calls work; the noise is kept in the stderr tail', async () => {
    const server = harness.start(stdioDefinition(['--garbage-stdout']));
    expect((await ensureConnected(server.actor)).ok).toBe(true);
    expect(server.states).toEqual(['init', 'connecting', 'connected']);
    expect(textOf(await callTool(server, 'echo', { text: 'clean' }))).toBe('clean');
    await vi.waitFor(() => {
      const tail = server.actor.getSnapshot().context.stderrTail;
      expect(tail).toContain('[stdout] Starting fixture server... (this is not JSON)');
      expect(tail).toContain('[stdout] >>> calling echo <<<');
    });
  });
});

describe('catalog', () => {
  it('a catalog over 3 pages: the actor holds every tool and resource', async () => {
    const paged = harness.start(stdioDefinition(['--pages', '3']));
    const whole = harness.start(stdioDefinition(['--pages', '1']));
    const [a, b] = await Promise.all([ensureConnected(paged.actor), ensureConnected(whole.actor)]);
    expect(a.ok && b.ok).toBe(true);

    const pagedCatalog = paged.actor.getSnapshot().context.catalog!;
    const wholeCatalog = whole.actor.getSnapshot().context.catalog!;
    expect(pagedCatalog.tools.length).toBeGreaterThanOrEqual(3);
    expect(pagedCatalog.tools).toEqual(wholeCatalog.tools);
    expect(pagedCatalog.resources).toEqual(wholeCatalog.resources);
    expect(new Set(pagedCatalog.tools.map((tool) => tool.name)).size).toBe(pagedCatalog.tools.length);
    expect(paged.catalogs.at(-1)?.catalog.tools).toEqual(wholeCatalog.tools);
    // The fixture logs every page it served.
    const tail = paged.actor.getSnapshot().context.stderrTail;
    for (const cursor of ['-', 'page-1', 'page-2']) expect(tail).toContain(`tools/list cursor=${cursor}`);
    expect(tail).not.toContain('tools/list cursor=page-3');
  });

  it('list_changed: the actor refreshes its catalog and tells its parent, staying connected', async () => {
    const server = harness.start(stdioDefinition(['--list-changed']));
    expect((await ensureConnected(server.actor)).ok).toBe(true);
    const before = server.actor.getSnapshot().context.catalog!;
    expect(before.tools.map((tool) => tool.name)).not.toContain('added_1');
    expect(server.catalogs).toHaveLength(1);

    expect(textOf(await callTool(server, 'change_lists'))).toBe('added added_1');
    await vi.waitFor(() => {
      const { catalog } = server.actor.getSnapshot().context;
      expect(catalog?.tools.map((tool) => tool.name)).toContain('added_1');
      expect(catalog?.resources.map((resource) => resource.uri)).toContain('fixture://added/1');
    });
    const last = server.catalogs.at(-1)!;
    expect(last).toMatchObject({ name: 'fixture-stdio', generation: 1 });
    expect(last.catalog.tools).toHaveLength(before.tools.length + 1);
    expect(last.catalog.resources).toHaveLength(before.resources.length + 1);
    expect(textOf(await callTool(server, 'added_1'))).toBe('ran added_1');
    expect(server.states).toEqual(['init', 'connecting', 'connected']);
  });
});

describe('stderr', () => {
  it('a chatty server: the stderr tail in context stays bounded and keeps the newest lines', async () => {
    const server = harness.start(stdioDefinition(['--chatty-stderr', '60']));
    expect((await ensureConnected(server.actor)).ok).toBe(true);
    await callTool(server, 'echo', { text: 'x' });
    await vi.waitFor(() =>
      expect(server.actor.getSnapshot().context.stderrTail).toMatch(/chatty stderr: calling echo$/),
    );
    const tail = server.actor.getSnapshot().context.stderrTail;
    expect(tail).toContain('chatty stderr line 60 of 60');
    expect(tail).not.toContain('chatty stderr line 1 of 60');
    expect(tail.split('\n').length).toBeLessThanOrEqual(20);
    expect(tail.length).toBeLessThanOrEqual(4_000);
  });

  it('a chatty server that crashes on start: the caller sees the tail, bounded, ending with the cause', async () => {
    const server = harness.start(stdioDefinition(['--chatty-stderr', '60', '--crash-on-start']));
    const result = await ensureConnected(server.actor);
    expect(result).toMatchObject({ ok: false, error: { kind: 'backoff' } });
    const tail = !result.ok ? result.error.stderrTail! : '';
    expect(tail).toMatch(/fatal: fixture refuses to start \(--crash-on-start\)$/);
    expect(tail).not.toContain('chatty stderr line 1 of 60');
    expect(tail.split('\n').length).toBeLessThanOrEqual(20);
    expect(tail.length).toBeLessThanOrEqual(4_000);
    expect(server.actor.getSnapshot().context.stderrTail).toBe(tail);
  });
});
