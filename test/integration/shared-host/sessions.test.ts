// Two Pi sessions (the whole extension, bridgePi) with `settings.sharedHost`: one warm server in the
// host for both, each session's own server actor mirroring it; an elicitation caused by one session's
// call shows in that session's UI only. On by default; with `sharedHost: false` nothing is shared.

import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVERYTHING_ENTRY, stdioFixture } from '../../fixtures/servers/spawn.ts';
import { eventually, HostWorld, listed, sessionsOf } from './harness.ts';

let world: HostWorld;

beforeEach(() => {
  world = new HostWorld();
});

afterEach(async () => {
  await world.dispose();
});

function configure(settings: Record<string, unknown>, fixtureFlags: string[] = []): void {
  const fixture = stdioFixture(fixtureFlags);
  writeFileSync(
    `${world.agentDir}/mcp.json`,
    JSON.stringify({
      settings,
      mcpServers: {
        fixture: { ...fixture, inheritEnv: false, lifecycle: 'eager' },
        everything: {
          command: process.execPath,
          args: [EVERYTHING_ENTRY],
          inheritEnv: false,
          lifecycle: 'eager',
        },
      },
    }),
  );
}

// Eager servers connect at start; server-everything adds its elicitation tool for the capability.
const piSession = () =>
  world.piSession(
    (s) =>
      listed('fixture')(s) &&
      (s.context.catalogs.everything?.tools.some((t) => t.name === 'trigger-elicitation-request') ?? false),
  );

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');

describe('Pi sessions with settings.sharedHost', () => {
  it('two sessions call one warm server; each actor mirrors it as connected', async () => {
    configure({ sharedHost: true });
    const a = await piSession();
    const b = await piSession();
    expect(text(await a.pi.callTool('fixture__echo', { text: 'from A' }))).toContain('from A');
    expect(text(await b.pi.callTool('fixture__echo', { text: 'from B' }))).toContain('from B');
    const status = await world.status();
    expect(sessionsOf(status)).toHaveLength(2);
    expect(status?.instances.map((i) => [i.server, i.attached]).sort()).toEqual([
      ['everything', 2],
      ['fixture', 2],
    ]);
    for (const { runtime } of [a, b]) {
      const ref = runtime.servers().fixture!;
      expect(ref.getSnapshot().matches('connected')).toBe(true);
    }
    // A session that ends detaches; the server stays warm for the next one.
    await a.runtime.stop();
    const after = await world.status();
    expect(after?.instances).toContainEqual(expect.objectContaining({ server: 'fixture', attached: 1 }));
    expect(sessionsOf(after)).toHaveLength(1);
  });

  it("an elicitation caused by A's call shows in A's UI only", async () => {
    configure({ sharedHost: true });
    const a = await piSession();
    const b = await piSession();
    a.pi.dialog = () => undefined; // Escape: the user cancels the form
    const result = await a.pi.callTool('everything__trigger-elicitation-request', {});
    expect(text(result)).toMatch(/cancel/i);
    expect(a.pi.dialogs.length).toBeGreaterThan(0);
    expect(b.pi.dialogs).toEqual([]);
    expect((await world.status())?.instances).toContainEqual(
      expect.objectContaining({ server: 'everything', attached: 2 }),
    );
  });

  it("/mcp reconnect in A restarts the host's copy once A's user agrees: B's actor goes connecting with it, and B's call in flight says why it failed", async () => {
    const holdFile = join(world.root, 'hold-start');
    configure({ sharedHost: true }, ['--wait-while', holdFile]);
    const a = await piSession();
    const b = await piSession();
    const firstPid = (await world.status())?.instances.find((i) => i.server === 'fixture')?.pid;
    const inFlight = b.pi.callTool('fixture__hang', {});
    await eventually(async () =>
      expect((await world.status())?.instances).toContainEqual(
        expect.objectContaining({ server: 'fixture', inFlight: 1 }),
      ),
    );

    writeFileSync(holdFile, ''); // the new copy waits at its start until the test lets it go
    a.pi.dialog = () => 'yes'; // B's call runs on it: A's user is asked first (restart-consent.test.ts)
    const reconnected = a.pi.command('mcp', 'reconnect fixture');
    expect(text(await inFlight)).toContain(
      'another session restarted "fixture" (/mcp reconnect) while the call ran',
    );
    // B's own actor mirrors the host's copy starting again: connecting, waiting for the fresh copy
    // (the host's copy is connecting too: said once).
    await eventually(async () =>
      expect(await b.pi.command('mcp', 'fixture')).toMatch(
        /^fixture: connecting, shared \(host pid \d+\) — /,
      ),
    );
    expect(b.runtime.servers().fixture!.getSnapshot().matches('connecting')).toBe(true);
    rmSync(holdFile);
    expect(await reconnected).toMatch(/^fixture: connected, shared \(host pid \d+\) — /);
    await eventually(async () =>
      expect(await b.pi.command('mcp', 'fixture')).toMatch(/^fixture: connected, shared \(host pid \d+\) — /),
    );
    expect(text(await b.pi.callTool('fixture__echo', { text: 'from B' }))).toContain('from B');
    expect(text(await a.pi.callTool('fixture__echo', { text: 'from A' }))).toContain('from A');
    const fixture = (await world.status())?.instances.find((i) => i.server === 'fixture');
    expect(fixture).toMatchObject({ state: 'connected', attached: 2 });
    expect(fixture?.pid).not.toBe(firstPid);
  });

  it('on by default: a session with no settings runs its servers in the host', async () => {
    configure({});
    const a = await piSession();
    expect(text(await a.pi.callTool('fixture__echo', { text: 'shared' }))).toContain('shared');
    const status = await world.status();
    expect(status?.instances.map((i) => i.server).sort()).toEqual(['everything', 'fixture']);
    expect(await a.pi.command('mcp', 'fixture')).toMatch(/^fixture: connected, shared \(host pid \d+\) — /);
  });

  it('sharedHost: false: no host is started, servers run in the session', async () => {
    configure({ sharedHost: false });
    const a = await piSession();
    expect(text(await a.pi.callTool('fixture__echo', { text: 'alone' }))).toContain('alone');
    expect(existsSync(world.socket)).toBe(false);
    expect(await world.status()).toBeUndefined();
  });
});
