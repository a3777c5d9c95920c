// approveTools through the whole extension (bridgePi on a recording Pi, a real fixture server over
// stdio): each answer of the dialog, resource reads, and the no-UI path that fails closed.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { untilNoFixtureServers } from '../support/fixture-processes.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
const bridges: PiBridge[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-approval-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(async () => {
  for (const bridge of bridges.splice(0)) {
    const runtime = await bridge.runtime();
    await runtime.stop();
    runtime.dispose();
  }
  rmSync(root, { recursive: true, force: true });
  // A connect still in flight when the runtime stops is ended by its abort path, which does not hold
  // stop() (src/adapters/mcp/session.ts), so the process table is polled until the fixture is gone.
  await untilNoFixtureServers();
});

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');

async function boot(servers: Record<string, unknown>, options: { hasUI?: boolean; settings?: unknown } = {}) {
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({ ...(options.settings ? { settings: options.settings } : {}), mcpServers: servers }),
  );
  const pi = new RecordingPi(project);
  if (options.hasUI === false) Object.assign(pi.ctx, { hasUI: false, mode: 'print' });
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: agentDir },
    homeDir: root,
  });
  bridges.push(bridge);
  await pi.emit('session_start', {});
  const runtime = await bridge.runtime();
  await waitFor(runtime.actor, (s) => Object.keys(servers).every((n) => Boolean(s.context.catalogs[n])), {
    timeout: 30_000,
  });
  return pi;
}

const guarded = (extra: Record<string, unknown> = {}) => ({
  ...stdioFixture([]),
  lifecycle: 'eager',
  ...extra,
});

describe('approveTools in Pi', () => {
  it('asks before a matching call; Allow once runs it and asks again next time; other tools run unasked', async () => {
    const pi = await boot({ fx: guarded({ approveTools: ['echo'] }) });
    pi.dialog = () => 'Allow once';
    expect(text(await pi.callTool('fx__echo', { text: 'hi' }))).toContain('hi');
    expect(text(await pi.callTool('fx__echo', { text: 'again' }))).toContain('again');
    expect(text(await pi.callTool('fx__add', { a: 1, b: 2 }))).toContain('3');
    expect(pi.dialogs).toEqual([
      {
        method: 'select',
        title: 'MCP server "fx" tool echo wants to run (approveTools). Allow it?\n{"text":"hi"}',
        options: ['Allow once', 'Allow for this session', 'Allow this server for this session', 'Deny'],
      },
      expect.objectContaining({ method: 'select' }),
    ]);
  });

  it('Deny and Escape: the call does not run and the model reads why', async () => {
    const pi = await boot({ fx: guarded({ approveTools: true }) });
    pi.dialog = () => 'Deny';
    const denied = await pi.callTool('fx__echo', { text: 'secret plan' });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toMatch(/^The user denied the call to fx__echo \(MCP server "fx"\); it did not run/);
    pi.dialog = () => undefined;
    expect(text(await pi.callTool('fx__echo', { text: 'x' }))).toMatch(/user denied/);
  });

  it('Allow for this session covers that tool; Allow this server covers all of its tools; a new session asks again', async () => {
    const pi = await boot({ fx: guarded({ approveTools: true }), other: guarded({ approveTools: true }) });
    pi.dialog = () => 'Allow for this session';
    await pi.callTool('fx__echo', { text: 'a' });
    await pi.callTool('fx__echo', { text: 'b' });
    expect(pi.dialogs).toHaveLength(1);
    pi.dialog = () => 'Allow this server for this session';
    expect(text(await pi.callTool('fx__add', { a: 2, b: 2 }))).toContain('4');
    expect(text(await pi.callTool('fx__structured', {}))).not.toMatch(/denied|approval/);
    expect(pi.dialogs).toHaveLength(2);
    pi.dialog = () => 'Deny';
    expect(text(await pi.callTool('other__add', { a: 1, b: 1 }))).toMatch(/denied/);
    // Pi ends the old session before it starts the new one.
    await pi.emit('session_shutdown', {});
    await pi.emit('session_start', { reason: 'new' });
    await waitFor(
      (await bridges[0]!.runtime()).actor,
      (s) => s.matches({ open: 'running' }) && Boolean(s.context.catalogs.fx),
      { timeout: 30_000 },
    );
    expect(text(await pi.callTool('fx__echo', { text: 'c' }))).toMatch(/denied/);
  });

  it('resource reads are gated too (settings.approveTools applies to servers that do not set it)', async () => {
    const pi = await boot({ fx: guarded() }, { settings: { approveTools: ['read_*'] } });
    const read = [...pi.tools.keys()].find((n) => n.startsWith('fx__read_'));
    expect(read).toBeDefined();
    pi.dialog = () => 'Deny';
    expect(text(await pi.callTool(read!, {}))).toMatch(/user denied/);
    expect(pi.dialogs[0]!.title).toContain('wants to read');
  });

  it('without UI (print mode) a matching call fails closed with how to allow it; nothing else is affected', async () => {
    const pi = await boot({ fx: guarded({ approveTools: ['echo'] }) }, { hasUI: false });
    const result = await pi.callTool('fx__echo', { text: 'hi' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(
      `fx__echo needs the user's approval before it runs ("approveTools" of server "fx" at mcpServers.fx in ${join(agentDir, 'mcp.json')}`,
    );
    expect(text(result)).toContain('set "approveTools": false on the server');
    expect(text(await pi.callTool('fx__add', { a: 1, b: 2 }))).toContain('3');
    expect(pi.dialogs).toEqual([]);
  });
});
