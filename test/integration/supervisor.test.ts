// The whole extension in-process: bridgePi on a recording PiHost, real config files, real fixture MCP
// servers over stdio and HTTP. Asserts what Pi would send the model (registered and active tools),
// what tool calls return, what /mcp says, and that no process or actor outlives the session.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import { serverStateOf } from '../../src/machines/server.machine.ts';
import { serverId } from '../../src/machines/session.machine.ts';
import {
  fixtureServerProcesses,
  type HttpFixture,
  startHttpFixture,
  stdioFixture,
} from '../fixtures/servers/spawn.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
const bridges: PiBridge[] = [];
const fixtures: HttpFixture[] = [];

/**
 * These tests are about the session's own runtime (its server processes, their end with the session,
 * generations), so servers run in the session: `settings.sharedHost: false`. The shared host's
 * sessions are tested in test/integration/shared-host/.
 */
function writeUserConfig(config: { settings?: Record<string, unknown> } & Record<string, unknown>) {
  const settings = { sharedHost: false, ...config.settings };
  writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify({ ...config, settings }));
}

function boot(options: { trusted?: boolean; env?: Record<string, string> } = {}) {
  const pi = new RecordingPi(project, options.trusted ?? true);
  const env = { PI_CODING_AGENT_DIR: agentDir, ...options.env };
  const bridge = bridgePi(pi, { connector: connectMcp, env, homeDir: root });
  bridges.push(bridge);
  return { pi, bridge };
}

const stdio = (flags: string[] = [], extra: Record<string, unknown> = {}) => ({
  ...stdioFixture(flags),
  ...extra,
});
const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-supervisor-'));
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
  expect(fixtureServerProcesses()).toEqual([]);
  rmSync(root, { recursive: true, force: true });
});

describe('supervisor with real servers', () => {
  it('registers every tool, activates only builtins + ToolSearch + direct tools, and loads more on search', async () => {
    writeUserConfig({
      mcpServers: {
        alpha: stdio([], { directTools: ['echo'] }),
        beta: stdio(['--name', 'beta']),
      },
    });
    const { pi, bridge } = boot();
    await pi.emit('session_start', { reason: 'startup' });
    const runtime = await bridge.runtime();
    // Direct tools are there for the first request: session_start waited for alpha (not cached).
    expect(pi.activeMcp()).toEqual(['ToolSearch', 'alpha__echo']);

    // First run, no cache: every server is connected once, in the background, to learn its tools.
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.alpha && s.context.catalogs.beta));
    expect(pi.tools.has('alpha__add')).toBe(true);
    expect(pi.tools.has('beta__add')).toBe(true);
    expect(pi.activeMcp()).toEqual(['ToolSearch', 'alpha__echo']);
    const description = pi.tools.get('ToolSearch')!.description;

    const found = await pi.callTool('ToolSearch', { query: 'add two numbers' });
    expect(text(found)).toMatch(/Loaded \d+ tools?/);
    expect(pi.activeMcp()).toContain('beta__add');
    expect(pi.activeMcp()).toContain('alpha__add');

    const sum = await pi.callTool('beta__add', { a: 2, b: 40 });
    expect(sum.isError).toBeFalsy();
    expect(text(sum)).toContain('42');

    const selected = await pi.callTool('ToolSearch', { query: 'select:beta__progress,nope__x' });
    expect(text(selected)).toContain('beta__progress');
    expect(pi.activeMcp()).toContain('beta__progress');
    expect(pi.tools.get('ToolSearch')!.description).toBe(description);

    expect(await pi.command('mcp', 'disable beta')).toMatch(/beta disabled for this session/);
    expect(pi.activeMcp().some((n) => n.startsWith('beta__'))).toBe(false);
    const afterDisable = await pi.callTool('ToolSearch', { query: 'add two numbers' });
    expect(text(afterDisable)).not.toContain('beta__');
    await pi.command('mcp', 'enable beta');
    expect(pi.activeMcp()).toContain('beta__add');
  });

  it('before the first model request only config and cache are read; the runtime starts after it and fills a cold cache', async () => {
    writeUserConfig({
      mcpServers: {
        early: stdio(['--name', 'early'], { lifecycle: 'eager' }),
        cold: stdio(['--name', 'cold']),
      },
    });
    const { pi } = boot();
    await pi.emit('session_start', { reason: 'startup' });
    // ToolSearch is registered and the active set narrowed; no runtime yet: no status, no process.
    expect(pi.activeMcp()).toEqual(['ToolSearch']);
    expect(pi.status).toBeUndefined();
    expect(fixtureServerProcesses()).toHaveLength(0);
    await pi.emit('agent_start', {});
    await pi.emit('before_provider_request', { payload: {} });
    // Once the request is on its way: the eager server and the one whose tools are unknown connect,
    // and each one's cache entry is written as soon as it has listed its tools (no shutdown needed).
    await waitForServerProcesses(2);
    const cacheFile = join(agentDir, 'mcp-cache.json');
    await vi.waitFor(
      () =>
        expect(Object.keys(JSON.parse(readFileSync(cacheFile, 'utf8')).servers).sort()).toEqual([
          'cold',
          'early',
        ]),
      { timeout: 10_000, interval: 50 },
    );
    expect(pi.status).toMatch(/MCP/);
  });

  it('warm cache + lazy servers: tools registered with no process started; the first call starts exactly one', async () => {
    writeUserConfig({
      mcpServers: { one: stdio([], { directTools: ['echo'] }), two: stdio(['--name', 'two']) },
    });
    const first = boot();
    await first.pi.emit('session_start', {});
    await waitFor((await first.bridge.runtime()).actor, (s) =>
      Boolean(s.context.catalogs.one && s.context.catalogs.two),
    );
    await first.pi.emit('session_shutdown', {});
    await waitForServerProcesses(0);

    const { pi, bridge } = boot();
    // At session_start, from the cache alone, only what the first request declares is registered
    // (each registration costs Pi a rebuild of its tool registry); only the direct one is active.
    await pi.emit('session_start', {});
    expect(pi.activeMcp()).toEqual(['ToolSearch', 'one__echo']);
    const mcpTools = () => [...pi.tools.keys()].filter((n) => n.includes('__')).sort();
    expect(mcpTools()).toEqual(['one__echo']);
    // The runtime registers the deferred rest (callable by codemode and ctx.executeTool), still no process.
    await bridge.runtime();
    expect(mcpTools()).toEqual(expect.arrayContaining(['one__add', 'one__echo', 'two__add', 'two__echo']));
    expect(mcpTools().length).toBeGreaterThan(4);
    expect(pi.activeMcp()).toEqual(['ToolSearch', 'one__echo']);
    expect(fixtureServerProcesses()).toHaveLength(0);
    const found = await pi.callTool('ToolSearch', { query: 'select:two__add' });
    expect(pi.tools.has('one__add')).toBe(true);
    expect(pi.tools.has('two__add')).toBe(true);
    expect(text(found)).toContain('two__add');
    // Loading two__add starts its server in the background, for the call the model makes next.
    await waitForServerProcesses(1);
    expect(text(await pi.callTool('two__add', { a: 1, b: 2 }))).toContain('3');
    expect(fixtureServerProcesses()).toHaveLength(1);
  });

  it('when codemode scripts can call MCP tools, every cached tool is registered at session_start', async () => {
    writeUserConfig({
      mcpServers: { one: stdio([], { exposure: 'codemode' }), two: stdio(['--name', 'two']) },
    });
    const warm = boot();
    await warm.pi.emit('session_start', {});
    await waitFor((await warm.bridge.runtime()).actor, (s) =>
      Boolean(s.context.catalogs.one && s.context.catalogs.two),
    );
    await warm.pi.emit('session_shutdown', {});
    await waitForServerProcesses(0);

    // A server asks for codemode: Pi's codemode tool is activated and reaches every tool from the start.
    const served = boot();
    await served.pi.emit('session_start', {});
    expect([...served.pi.tools.keys()]).toEqual(expect.arrayContaining(['one__echo', 'two__echo']));
    await served.pi.emit('session_shutdown', {});

    // The user has Pi's codemode on: the same, with no server asking for it.
    writeUserConfig({ mcpServers: { two: stdio(['--name', 'two']) } });
    const { pi } = boot();
    pi.active.push('codemode');
    await pi.emit('session_start', {});
    expect([...pi.tools.keys()]).toEqual(expect.arrayContaining(['two__echo', 'two__add']));
    expect(pi.activeMcp()).toEqual(['ToolSearch']);
    expect(fixtureServerProcesses()).toHaveLength(0);
  });

  it('a list_changed adds the new tool, registered but inactive, and ToolSearch keeps its description', async () => {
    writeUserConfig({ mcpServers: { live: stdio(['--list-changed']) } });
    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    const description = pi.tools.get('ToolSearch')!.description;
    await pi.callTool('ToolSearch', { query: 'select:live__change_lists' });
    const changed = await pi.callTool('live__change_lists', {});
    expect(text(changed)).toContain('added_1');
    await waitFor(
      runtime.actor,
      (s) => s.context.catalogs.live?.tools.some((t) => t.name === 'added_1') ?? false,
    );
    expect(pi.tools.has('live__added_1')).toBe(true);
    expect(pi.activeMcp()).not.toContain('live__added_1');
    expect(pi.tools.get('ToolSearch')!.description).toBe(description);
    const found = await pi.callTool('ToolSearch', { query: 'select:live__added_1' });
    expect(text(found)).toContain('live__added_1');
  });

  it('a changed tool is registered again under its name, a vanished one withdrawn; search, /mcp tools and the cache follow', async () => {
    writeUserConfig({ mcpServers: { live: stdio(['--list-changed']) } });
    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.live));
    const description = pi.tools.get('ToolSearch')!.description;
    expect(pi.tools.get('live__echo')!.parameters).not.toHaveProperty('properties.volume');
    await pi.callTool('ToolSearch', { query: 'select:live__reshape,live__echo,live__environment' });
    expect(pi.activeMcp()).toContain('live__environment');

    await pi.callTool('live__reshape', {});
    await waitFor(
      runtime.actor,
      (s) => !(s.context.catalogs.live?.tools.some((t) => t.name === 'environment') ?? true),
    );
    const echo = pi.tools.get('live__echo')!;
    expect(echo.description).toBe('Echoes the text back at the given volume.');
    expect(echo.parameters).toMatchObject({ required: ['text', 'volume'] });
    expect(echo.exposure).toBe('deferred');
    expect(pi.tools.get('live__environment')!.exposure).toBe('hidden');
    expect(pi.activeMcp()).toContain('live__echo');
    expect(pi.activeMcp()).not.toContain('live__environment');
    expect(pi.tools.get('ToolSearch')!.description).toBe(description);

    expect(text(await pi.callTool('live__echo', { text: 'hi', volume: 'loud' }))).toBe('HI');
    const gone = await pi.callTool('ToolSearch', { query: 'select:live__environment' });
    expect(text(gone)).toMatch(/Unknown tool names: live__environment/);
    const listed = await pi.command('mcp', 'tools live');
    expect(listed).toContain('live__echo');
    expect(listed).not.toContain('live__environment');
    await vi.waitFor(() => {
      const cached = JSON.parse(readFileSync(join(agentDir, 'mcp-cache.json'), 'utf8')).servers.live;
      expect(cached.tools.map((t: { name: string }) => t.name)).not.toContain('environment');
    });

    // The next session starts from that cache: echo with its new schema, environment not registered.
    await pi.emit('session_shutdown', {});
    const next = boot();
    await next.pi.emit('session_start', {});
    await next.bridge.runtime();
    expect(next.pi.tools.get('live__echo')!.parameters).toMatchObject({ required: ['text', 'volume'] });
    expect(next.pi.tools.has('live__environment')).toBe(false);
  });

  it('a live tool list that differs from the cache replaces the cached schemas', async () => {
    writeUserConfig({ mcpServers: { live: stdio([], { lifecycle: 'eager' }) } });
    const stale = {
      name: 'echo',
      description: 'An old echo.',
      inputSchema: { type: 'object', properties: { words: { type: 'string' } } },
    };
    const first = boot();
    await first.pi.emit('session_start', {});
    await waitFor((await first.bridge.runtime()).actor, (s) => Boolean(s.context.catalogs.live));
    await first.pi.emit('session_shutdown', {});
    const file = join(agentDir, 'mcp-cache.json');
    const cache = JSON.parse(readFileSync(file, 'utf8'));
    cache.servers.live.tools = [stale, { ...stale, name: 'retired_tool' }];
    writeFileSync(file, JSON.stringify(cache));

    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => !s.context.fromCache.includes('live'));
    expect(pi.tools.get('live__echo')!.description).toBe('Echoes the text back.');
    expect(pi.tools.get('live__echo')!.parameters).toMatchObject({ required: ['text'] });
    expect(pi.tools.get('live__retired_tool')!.exposure).toBe('hidden');
  });

  it('reconnect over HTTP picks up tools the server added meanwhile', async () => {
    const http = await startHttpFixture();
    fixtures.push(http);
    writeUserConfig({ mcpServers: { web: { url: http.url } } });
    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.web));
    expect(pi.tools.has('web__echo')).toBe(true);
    await pi.callTool('ToolSearch', { query: 'select:web__change_lists' });
    await pi.callTool('web__change_lists', {});
    const status = await pi.command('mcp', 'reconnect web');
    expect(status).toMatch(/web: connected/);
    await waitFor(
      runtime.actor,
      (s) => s.context.catalogs.web?.tools.some((t) => t.name === 'added_1') ?? false,
    );
    expect(pi.tools.has('web__added_1')).toBe(true);
  });

  it('answers the model with actionable errors for a crashing server and a 401 server', async () => {
    const auth = await startHttpFixture(['--require-token', 'right-token']);
    fixtures.push(auth);
    writeUserConfig({
      mcpServers: {
        broken: stdio(['--crash-on-start']),
        locked: { url: auth.url },
      },
    });
    const { pi } = boot();
    await pi.emit('session_start', {});
    const search = await pi.callTool('ToolSearch', { query: 'echo' });
    expect(text(search)).toMatch(/broken/);
    expect(text(search)).toMatch(/\/mcp-auth locked/);
    const status = await pi.command('mcp');
    expect(status).toMatch(/broken: failed/);
    expect(status).toMatch(/refuses to start/);
    expect(status).toMatch(/locked: needs auth/);
    expect(
      pi.notifications.filter((n) => n.level === 'warning' && n.message.includes('locked')),
    ).toHaveLength(1);
  });

  it('a config warning is told once: at session_start, not again by the runtime that starts from that reading', async () => {
    writeUserConfig({ mcpServers: { notes: stdio([], { lifecycle: 'sometimes' }) } });
    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => s.matches({ open: 'running' }));
    expect(pi.notifications.filter((n) => /lifecycle/.test(n.message))).toHaveLength(1);
    // A new session reads the config again and tells it again.
    await pi.emit('session_start', { reason: 'new' });
    await waitFor(runtime.actor, (s) => s.matches({ open: 'running' }) && s.context.generation === 2);
    expect(pi.notifications.filter((n) => /lifecycle/.test(n.message))).toHaveLength(2);
  });

  it('debug: true writes the stderr of the server to the log as it arrives', async () => {
    writeUserConfig({ mcpServers: { loud: stdio(['--chatty-stderr', '2'], { debug: true }) } });
    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.loud));
    await vi.waitFor(
      () =>
        expect(readFileSync(join(agentDir, 'pi-mcp-actors.log'), 'utf8')).toMatch(
          /\[loud\] chatty stderr line 2 of 2/,
        ),
      {
        timeout: 5000,
      },
    );
  });

  it('/mcp never shows a configured secret, even when the server prints it on stderr', async () => {
    const secret = 'sk-live-0123456789abcdef';
    writeUserConfig({
      mcpServers: {
        leaky: {
          command: 'sh',
          args: ['-c', 'echo "starting with token=$API_TOKEN" >&2; exit 3'],
          env: { API_TOKEN: secret },
          lifecycle: 'eager',
        },
      },
    });
    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(runtime.servers().leaky!, (s) => s.context.lastError !== undefined, { timeout: 10_000 });
    const status = await pi.command('mcp');
    expect(status).toMatch(/leaky/);
    expect(status).toContain('token=***');
    expect(status).not.toContain(secret);
    expect(pi.notifications.map((n) => n.message).join('\n')).not.toContain(secret);
  });

  it('settings.proxyTool adds the `mcp` gateway: status, search, describe and call through one tool', async () => {
    writeUserConfig({ mcpServers: { fx: stdio() }, settings: { proxyTool: true } });
    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.fx));
    expect(pi.activeMcp()).toContain('mcp');
    expect(text(await pi.callTool('mcp', {}))).toMatch(/fx: connected/);
    expect(text(await pi.callTool('mcp', { search: 'add numbers' }))).toMatch(/fx__add/);
    expect(text(await pi.callTool('mcp', { describe: 'fx__add' }))).toMatch(
      /Parameters: a \(number, required\)/,
    );
    expect(text(await pi.callTool('mcp', { tool: 'fx__add', args: '{"a":40,"b":2}' }))).toContain('42');
    const badJson = await pi.callTool('mcp', { tool: 'fx__add', args: '{a:1' });
    expect(badJson.isError).toBe(true);
    expect(text(badJson)).toMatch(/args is not valid JSON/);
    const unknown = await pi.callTool('mcp', { tool: 'fx__ad' });
    expect(text(unknown)).toMatch(/Unknown tool "fx__ad"\. Close names: .*fx__add/);
  });

  it('PI_MCP_INSPECT=<file.jsonl> records redacted inspection events of the whole session', async () => {
    const secret = 'ghp_inspectme0123456789';
    const file = join(root, 'inspect.jsonl');
    writeUserConfig({ mcpServers: { fx: stdio([], { env: { GITHUB_TOKEN: secret } }) } });
    const { pi, bridge } = boot({ env: { PI_MCP_INSPECT: file } });
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.fx));
    await pi.emit('session_shutdown', {});
    const raw = readFileSync(file, 'utf8');
    expect(raw).not.toContain(secret);
    const events = raw
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.some((e) => e.systemId === 'server:fx')).toBe(true);
    expect(raw).toContain('"connected"');
  });

  it('a non-loopback inspection target is refused with a clear message, and MCP still works', async () => {
    writeUserConfig({ mcpServers: { fx: stdio() } });
    const { pi, bridge } = boot({ env: { PI_MCP_INSPECT: 'ws://10.1.2.3:9000/x' } });
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    expect(pi.notifications.map((n) => n.message).join('\n')).toMatch(/inspection is off: .*only loopback/);
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.fx));
  });

  it('servers other extensions register (pi.getMcpServers, mcp_servers_change) are connected too', async () => {
    writeUserConfig({ mcpServers: { mine: stdio() } });
    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.mine));
    expect(pi.tools.has('theirs__echo')).toBe(false);
    pi.mcpServers = [
      { name: 'theirs', config: stdio(['--name', 'theirs']), extensionPath: '/ext/theirs.ts' },
    ];
    await pi.emit('mcp_servers_change', { servers: pi.mcpServers });
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.theirs && s.context.catalogs.mine));
    expect(pi.tools.has('theirs__echo')).toBe(true);
    expect(runtime.actor.getSnapshot().context.generation).toBe(2);
  });

  it('skips project servers until the project is trusted, and says how to trust it', async () => {
    mkdirSync(join(project, '.pi'));
    writeFileSync(join(project, '.pi', 'mcp.json'), JSON.stringify({ mcpServers: { local: stdio() } }));
    const { pi } = boot({ trusted: false });
    await pi.emit('session_start', {});
    expect([...pi.tools.keys()].some((n) => n.startsWith('local__'))).toBe(false);
    expect(await pi.command('mcp')).toMatch(/local: skipped/);
  });

  it('a server disabled mid-session closes through `closing`: its actor stops once its process is gone', async () => {
    writeUserConfig({ mcpServers: { gone: stdio([], { lifecycle: 'eager' }) } });
    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    const server = runtime.servers().gone!;
    await waitFor(server, (s) => s.matches('connected'), { timeout: 15_000 });
    const pid = server.getSnapshot().context.connection!.pid!;
    const seen: string[] = [];
    server.subscribe((s) => seen.push(serverStateOf(s)));
    expect(await pi.command('mcp', 'disable gone')).toMatch(/gone disabled/);
    await waitFor(runtime.actor, (s) => !s.children['server:gone'], { timeout: 15_000 });
    expect(seen).toContain('closing');
    expect(server.getSnapshot().status).toBe('stopped');
    // No polling: the actor stopped only after the close had ended the process.
    expect(fixtureServerProcesses().map((p) => p.pid)).not.toContain(pid);
  });

  it('the session shutdown returns once every server process is gone', async () => {
    writeUserConfig({
      mcpServers: {
        one: stdio([], { lifecycle: 'eager' }),
        two: stdio(['--name', 'two'], { lifecycle: 'eager' }),
      },
    });
    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    for (const ref of Object.values(runtime.servers()))
      await waitFor(ref, (s) => s.matches('connected'), { timeout: 15_000 });
    expect(fixtureServerProcesses()).toHaveLength(2);
    await pi.emit('session_shutdown', {});
    expect(runtime.actor.getSnapshot().matches('idle')).toBe(true);
    expect(fixtureServerProcesses()).toEqual([]);
  });

  it("a new session while one is open (/new, /reload): the old server's process is gone before the new generation spawns its actor", async () => {
    // SIGTERM is ignored: the old process ends only at the close's SIGKILL, well after a new start could spawn.
    writeUserConfig({ mcpServers: { same: stdio(['--ignore-sigterm'], { lifecycle: 'eager' }) } });
    const { pi, bridge } = boot();
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    const old = runtime.servers().same!;
    await waitFor(old, (s) => s.matches('connected'), { timeout: 15_000 });
    const oldPid = old.getSnapshot().context.connection!.pid!;
    expect(fixtureServerProcesses().map((p) => p.pid)).toContain(oldPid);
    // The moment the new generation's actor for `same` appears, which server processes are alive?
    let aliveAtSpawn: number[] | undefined;
    const watching = runtime.actor.subscribe((s) => {
      const child = s.children[serverId('same')];
      if (child && child !== old && aliveAtSpawn === undefined)
        aliveAtSpawn = fixtureServerProcesses().map((p) => p.pid);
    });
    await pi.emit('session_start', { reason: 'new' });
    await pi.command('mcp'); // the runtime starts with the new session
    watching.unsubscribe();
    expect(runtime.actor.getSnapshot().context.generation).toBe(2);
    expect(aliveAtSpawn).toBeDefined();
    expect(aliveAtSpawn).not.toContain(oldPid);
    const fresh = runtime.servers().same!;
    expect(fresh).not.toBe(old);
    await waitFor(fresh, (s) => s.matches('connected'), { timeout: 15_000 });
    expect(fixtureServerProcesses().map((p) => p.pid)).not.toContain(oldPid);
  });

  it('three rapid session starts with slow connects: one runtime start, nothing leaks', async () => {
    writeUserConfig({ mcpServers: { slow: stdio(['--slow-start-ms', '300'], { lifecycle: 'eager' }) } });
    const { pi, bridge } = boot();
    await Promise.all([
      pi.emit('session_start', {}),
      pi.emit('session_start', {}),
      pi.emit('session_start', {}),
    ]);
    // The runtime loads after them, with the last session.
    const runtime = await bridge.runtime();
    await waitFor(runtime.actor, (s) => s.matches({ open: 'running' }));
    expect(runtime.actor.getSnapshot().context.generation).toBe(1);
    const slow = runtime.servers().slow!;
    await waitFor(slow, (s) => s.matches('connected'), { timeout: 15_000 });
    expect(Object.keys(runtime.servers())).toEqual(['slow']);
    await waitForServerProcesses(1);
    await pi.emit('session_shutdown', {});
    expect(runtime.actor.getSnapshot().matches('idle')).toBe(true);
    expect(Object.keys(runtime.servers())).toEqual([]);
    await waitForServerProcesses(0);
  });
});

/** Polls the real process table until exactly `n` stdio fixture processes are ours. */
function waitForServerProcesses(n: number) {
  return vi.waitFor(() => expect(fixtureServerProcesses()).toHaveLength(n), {
    timeout: 10_000,
    interval: 50,
  });
}
