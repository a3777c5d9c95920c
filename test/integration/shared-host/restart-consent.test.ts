// A restart of a shared server never silently cuts another session's calls: two Pi sessions (the whole
// extension, bridgePi) on one real host; B has a call running (the fixture's gated tool, which answers
// once the test removes its gate file); A's `/mcp reconnect` is held back by the host and A's user is
// asked. No: nothing restarts and B's call completes. Yes: B's call fails saying A restarted it. No call
// of B's: A restarts at once, nobody asked. No UI: refused, saying how to force it.

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { stdioFixture } from '../../fixtures/servers/spawn.ts';
import { eventually, HostWorld, listed, textOf } from './harness.ts';

let world: HostWorld;
let gate: string;

beforeEach(() => {
  world = new HostWorld();
  gate = join(world.root, 'gate');
  writeFileSync(
    `${world.agentDir}/mcp.json`,
    JSON.stringify({
      settings: { sharedHost: true },
      mcpServers: { fixture: { ...stdioFixture(['--gate-tools']), inheritEnv: false, lifecycle: 'eager' } },
    }),
  );
});

afterEach(async () => {
  rmSync(gate, { force: true });
  await world.dispose();
});

const piSession = () => world.piSession(listed('fixture'));

const fixturePid = async () => (await world.status())?.instances.find((i) => i.server === 'fixture')?.pid;

/** B starts a call that runs until the gate file is removed; resolves once the host runs it (with the call). */
async function gatedCallOf(b: Awaited<ReturnType<typeof piSession>>) {
  writeFileSync(gate, '');
  const call = b.pi.callTool('fixture__gated_progress', { path: gate, intervalMs: 50 });
  await eventually(async () =>
    expect((await world.status())?.instances).toContainEqual(
      expect.objectContaining({ server: 'fixture', inFlight: 1 }),
    ),
  );
  return { call };
}

/** What a command prints in Pi's print mode (no UI: text for the user goes to stdout). */
async function printed(run: () => Promise<unknown>): Promise<string> {
  const out: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    write.mockRestore();
  }
  return out.join('');
}

const QUESTION =
  '1 call from another Pi session is running on "fixture" in the shared host; restarting it cuts it. Restart anyway?';

it("B's call running: A is asked; no leaves the host's copy running and B's call completes", async () => {
  const a = await piSession();
  const b = await piSession();
  const firstPid = await fixturePid();
  const { call } = await gatedCallOf(b);

  a.pi.dialog = () => 'no';
  expect(await a.pi.command('mcp', 'reconnect fixture')).toBe(
    '"fixture" was not restarted: the other sessions\' calls on it keep running.',
  );
  expect(a.pi.dialogs).toEqual([
    { method: 'confirm', title: 'Restart a shared MCP server', message: QUESTION },
  ]);
  expect(b.pi.dialogs).toEqual([]);

  rmSync(gate);
  expect(textOf(await call)).toMatch(/^gate opened after \d+ steps$/);
  expect(await fixturePid()).toBe(firstPid);
  expect(a.runtime.servers().fixture!.getSnapshot().matches('connected')).toBe(true);
  expect(textOf(await a.pi.callTool('fixture__echo', { text: 'from A' }))).toContain('from A');
});

it("B's call running: A is asked; yes restarts the host's copy and B's call says another session restarted it", async () => {
  const a = await piSession();
  const b = await piSession();
  const firstPid = await fixturePid();
  const { call } = await gatedCallOf(b);

  a.pi.dialog = () => 'yes';
  expect(await a.pi.command('mcp', 'reconnect fixture')).toMatch(
    /^fixture: connected, shared \(host pid \d+\) — /,
  );
  expect(a.pi.dialogs).toEqual([
    { method: 'confirm', title: 'Restart a shared MCP server', message: QUESTION },
  ]);
  expect(textOf(await call)).toContain(
    'another session restarted "fixture" (/mcp reconnect) while the call ran',
  );
  await eventually(async () => expect(await fixturePid()).not.toBe(firstPid));
  expect(textOf(await b.pi.callTool('fixture__echo', { text: 'from B' }))).toContain('from B');
});

it('no call of another session running: the restart happens at once, nobody is asked', async () => {
  const a = await piSession();
  const b = await piSession();
  const firstPid = await fixturePid();
  // B's own call finished: nothing of B's runs on the copy.
  expect(textOf(await b.pi.callTool('fixture__echo', { text: 'done' }))).toContain('done');

  expect(await a.pi.command('mcp', 'reconnect fixture')).toMatch(
    /^fixture: connected, shared \(host pid \d+\) — /,
  );
  expect(a.pi.dialogs).toEqual([]);
  expect(await fixturePid()).not.toBe(firstPid);
  expect((await world.status())?.instances).toEqual([
    expect.objectContaining({ server: 'fixture', state: 'connected', attached: 2 }),
  ]);
});

it('no UI to ask in: refused, saying how to wait or force it; --force restarts', async () => {
  const a = await piSession();
  const b = await piSession();
  const firstPid = await fixturePid();
  const { call } = await gatedCallOf(b);

  Object.assign(a.pi.ctx, { hasUI: false, mode: 'print' });
  expect(await printed(() => a.pi.command('mcp', 'reconnect fixture'))).toBe(
    '"fixture" was not restarted: 1 call from another Pi session is running on it in the shared host, and a restart would cut it. ' +
      'Wait for it to finish and run /mcp reconnect fixture again, or run /mcp reconnect fixture --force to cut it; ' +
      'a server whose calls no other session may cut can be set to "share": "session".\n',
  );
  expect(a.pi.dialogs).toEqual([]);
  expect(await fixturePid()).toBe(firstPid);

  expect(await printed(() => a.pi.command('mcp', 'reconnect fixture --force'))).toMatch(
    /^fixture: connected, shared \(host pid \d+\) — /,
  );
  expect(textOf(await call)).toContain(
    'another session restarted "fixture" (/mcp reconnect) while the call ran',
  );
  expect(await fixturePid()).not.toBe(firstPid);
});
