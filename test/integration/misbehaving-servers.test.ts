// Servers that misbehave the way real ones do, through the whole extension in-process (bridgePi on a
// recording PiHost, real fixture servers over stdio and real HTTP): a slow tools/list must not hold
// ToolSearch, a cut call stream fails the call at once, a list_changed storm costs one listing per
// burst, a progress flood reaches Pi throttled, and a 3,000-tool server costs Pi what the model loads.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import type { ToolResult } from '../../src/tools/executor.ts';
import { type HttpFixture, startHttpFixture, stdioFixture } from '../fixtures/servers/spawn.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
const bridges: PiBridge[] = [];
const fixtures: HttpFixture[] = [];

function boot(config: unknown) {
  writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify(config));
  const pi = new RecordingPi(project, true);
  const bridge = bridgePi(pi, {
    connector: connectMcp,
    env: { PI_CODING_AGENT_DIR: agentDir },
    homeDir: root,
  });
  bridges.push(bridge);
  return { pi, bridge };
}

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-misbehaving-'));
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
  for (const fixture of fixtures.splice(0)) await fixture.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('servers that misbehave', () => {
  it('a server still listing its tools does not hold ToolSearch: it is named as still starting, its tools load when they arrive', async () => {
    const gate = join(root, 'list-gate');
    writeFileSync(gate, '');
    const { pi, bridge } = boot({
      mcpServers: {
        quick: stdioFixture(['--name', 'quick']),
        slow: { ...stdioFixture(['--name', 'slow', '--list-wait-while', gate]), startupTimeoutMs: 120_000 },
      },
    });
    await pi.emit('session_start', { reason: 'startup' });
    const runtime = await bridge.runtime();
    const description = pi.tools.get('ToolSearch')!.description;

    // The slow server's tools/list waits for the gate, which is removed only after this answer.
    const first = await pi.callTool('ToolSearch', { query: 'add two numbers' });
    expect(text(first)).toContain('quick__add');
    expect(text(first)).toMatch(/"slow" is still starting.*search again in a moment/s);
    expect(runtime.actor.getSnapshot().context.catalogs.slow).toBeUndefined();
    // Its actor says so (what ToolSearch waited for, and what /mcp and the inspector show).
    expect(runtime.servers().slow!.getSnapshot().matches({ connecting: 'listing' })).toBe(true);

    rmSync(gate);
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.slow), { timeout: 20_000 });
    const second = await pi.callTool('ToolSearch', { query: 'select:slow__add' });
    expect(text(second)).toContain('slow__add');
    expect(text(second)).not.toMatch(/still starting/);
    expect(pi.activeMcp()).toContain('slow__add');
    expect(pi.tools.get('ToolSearch')!.description).toBe(description);
  }, 30_000);

  it('a Streamable HTTP call whose stream is cut fails at once, saying the connection dropped mid-call and that it may have run', async () => {
    const http = await startHttpFixture(['--unruly-tools']);
    fixtures.push(http);
    const { pi, bridge } = boot({ mcpServers: { web: { url: http.url, requestTimeoutMs: 120_000 } } });
    await pi.emit('session_start', { reason: 'startup' });
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.web), { timeout: 20_000 });

    const cut = await pi.callTool('web__cut_stream', {});
    expect(cut.isError).toBe(true);
    expect(text(cut)).toMatch(/connection dropped mid-call/);
    expect(text(cut)).toMatch(/may have run/);
    expect(text(cut)).not.toMatch(/busy/);

    // The connection itself is fine: the next call answers.
    const echo = await pi.callTool('web__echo', { text: 'still here' });
    expect(echo.isError).toBeFalsy();
    expect(text(echo)).toBe('still here');
  }, 30_000);

  it('a call without an answer says "no answer within N s", not a guess that the server is busy', async () => {
    const { pi, bridge } = boot({
      mcpServers: { fx: { ...stdioFixture(['--hang-call']), requestTimeoutMs: 1_000 } },
    });
    await pi.emit('session_start', { reason: 'startup' });
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.fx), { timeout: 20_000 });
    const result = await pi.callTool('fx__echo', { text: 'hi' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/no answer within 1 s/);
    expect(text(result)).not.toMatch(/busy/);
  }, 30_000);

  it('a list_changed storm is one listing per burst, and the last schema wins', async () => {
    const lists = join(root, 'lists.txt');
    const { pi, bridge } = boot({
      mcpServers: { fx: stdioFixture(['--unruly-tools', '--list-changed', '--lists-file', lists]) },
    });
    await pi.emit('session_start', { reason: 'startup' });
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.fx), { timeout: 20_000 });
    await pi.callTool('ToolSearch', { query: 'select:fx__storm,fx__storm_target' });
    const listingsBefore = readFileSync(lists, 'utf8').split('\n').filter(Boolean).length;

    const storm = await pi.callTool('fx__storm', { count: 200 });
    expect(text(storm)).toContain('sent 200 list_changed');
    await waitFor(
      runtime.actor,
      (s) =>
        s.context.catalogs.fx?.tools.some((t) => t.description === 'Storm target at version 200.') ?? false,
      { timeout: 20_000 },
    );
    await waitFor(runtime.servers().fx!, (s) => s.matches({ connected: { tools: 'current' } }), {
      timeout: 20_000,
    });
    expect(pi.tools.get('fx__storm_target')).toMatchObject({
      description: 'Storm target at version 200.',
      parameters: { properties: { v200: { type: 'string' } } },
    });
    const listings = readFileSync(lists, 'utf8').split('\n').filter(Boolean).length - listingsBefore;
    expect(listings).toBeGreaterThanOrEqual(1);
    // One per burst; a storm the machine's load splits with pauses (or spreads past 1 s) costs a few.
    expect(listings).toBeLessThanOrEqual(10);
  }, 30_000);

  it('a progress flood reaches Pi throttled: few updates, the last one the final progress', async () => {
    const { pi, bridge } = boot({ mcpServers: { fx: stdioFixture(['--unruly-tools']) } });
    await pi.emit('session_start', { reason: 'startup' });
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.fx), { timeout: 20_000 });
    const updates: ToolResult[] = [];
    const result = await pi.tools
      .get('fx__flood')!
      .execute('call-flood', { count: 5_000 }, undefined, (partial) => updates.push(partial), {});
    expect(text(result)).toBe('flooded 5000 progress notifications');
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates.length).toBeLessThan(100);
    expect(updates.at(-1)?.details).toMatchObject({ progress: { progress: 5_000, total: 5_000 } });
  }, 30_000);

  it('a 3,000-tool server: Pi is given the tools the model loads, not all 3,000', async () => {
    const { pi, bridge } = boot({
      mcpServers: { big: stdioFixture(['--name', 'big', '--many-tools', '3000']) },
    });
    await pi.emit('session_start', { reason: 'startup' });
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.big), { timeout: 20_000 });
    expect(runtime.catalog().entries.length).toBeGreaterThan(3_000);
    const registeredBefore = pi.tools.size;
    expect(registeredBefore).toBeLessThan(50);

    const found = await pi.callTool('ToolSearch', { query: 'select:big__gen_1234' });
    expect(text(found)).toContain('big__gen_1234');
    expect(pi.activeMcp()).toContain('big__gen_1234');
    expect(pi.tools.size - registeredBefore).toBe(1);
    const ran = await pi.callTool('big__gen_1234', { id: 'x' });
    expect(text(ran)).toBe('ran gen_1234');
  }, 60_000);

  it('a 3,000-tool server with codemode on: every tool is registered, so codemode scripts reach them', async () => {
    const { pi, bridge } = boot({
      mcpServers: {
        big: { ...stdioFixture(['--name', 'big', '--many-tools', '3000']), exposure: 'codemode' },
      },
    });
    await pi.emit('session_start', { reason: 'startup' });
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.big), { timeout: 20_000 });
    await waitFor(runtime.actor, () => pi.tools.has('big__gen_3000'), { timeout: 20_000 });
    expect(pi.tools.get('big__gen_3000')!.exposure).toBe('deferred');
    expect(pi.activeMcp()).not.toContain('big__gen_3000');
  }, 60_000);
});
