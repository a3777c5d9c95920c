// A user sees what the shared host runs: `/mcp` and its panel in a second Pi session show a lazy server
// warm in the host before that session's first use (the panel asks the host once as it opens), and
// nothing is started to answer when no host runs. Real bridge over RecordingPi, real host, real server.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runMcpCommand } from '../../../src/commands/mcp-command.ts';
import { createPanelController } from '../../../src/commands/mcp-panel/controller.ts';
import { panelView, type RunningServer } from '../../../src/commands/mcp-panel/view.ts';
import { isAlive, stdioFixture } from '../../fixtures/servers/spawn.ts';
import { eventually, HostWorld, listed } from './harness.ts';

let world: HostWorld;

beforeEach(() => {
  world = new HostWorld();
  writeFileSync(
    `${world.agentDir}/mcp.json`,
    JSON.stringify({ mcpServers: { notes: { ...stdioFixture(), lifecycle: 'lazy' } } }),
  );
});

afterEach(async () => {
  await world.dispose();
});

const running = (s: { context: { config?: unknown } }) => s.context.config !== undefined;

/** A first session lists the lazy server's tools (through the host) and caches them: the next starts from the cache. */
async function firstSession() {
  const a = await world.piSession(listed('notes'));
  const cache = join(world.agentDir, 'mcp-cache.json');
  await eventually(() => expect(existsSync(cache) && readFileSync(cache, 'utf8')).toContain('notes'), 10_000);
  return a;
}
const CLOCK = /\(since \d\d:\d\d\)/;

it("a second session's /mcp and panel show a server warm in the host before its first use", async () => {
  await firstSession();
  const hostPid = (await world.status())!.pid;

  const b = await world.piSession(running);
  expect(b.runtime.servers().notes!.getSnapshot().value).toBe('init');

  // The panel asks once as it opens, and shows it without a tick.
  const panel = createPanelController(b.runtime, { onChange: () => {}, onClose: () => {} });
  await eventually(() => {
    const row = panelView(b.runtime).servers[0] as RunningServer;
    expect(row.warm).toMatch(CLOCK);
  }, 5_000);
  const lines = panel.lines({
    width: 100,
    height: 20,
    style: new Proxy({}, { get: () => (t: string) => t }) as never,
    text: { width: (t) => t.length, truncate: (t) => t, wrap: (t) => [t] },
  });
  expect(lines.join('\n')).toMatch(/○ warm in the shared host \(since \d\d:\d\d\)/);
  panel.dispose();

  const text = await runMcpCommand('status', b.runtime);
  expect(text).toMatch(new RegExp(`^notes: warm in the shared host ${CLOCK.source} — lazy, stdio`, 'm'));
  expect(await runMcpCommand('notes', b.runtime)).toMatch(/^notes: warm in the shared host/m);
  // Asking is a probe: the host counts one session (A), and B's server is still not started.
  const status = (await world.status())!;
  expect(status.clients.filter((c) => !c.probe)).toHaveLength(1);
  expect(b.runtime.servers().notes!.getSnapshot().value).toBe('init');
  expect((await world.status())!.pid).toBe(hostPid);
});

it('with no host running nothing is warm, and none is started to say so', async () => {
  const a = await firstSession();
  await a.runtime.stop();
  const hostPid = (await world.status())!.pid;
  process.kill(hostPid, 'SIGTERM');
  await eventually(() => expect(isAlive(hostPid)).toBe(false), 10_000);
  const b = await world.piSession(running);
  expect(b.runtime.servers().notes!.getSnapshot().value).toBe('init');
  expect(await runMcpCommand('status', b.runtime)).toMatch(/^notes: not started — lazy, stdio/m);
  expect(await world.status()).toBeUndefined();
});
