// Our extension in the real Pi over RPC: `/mcp` reports every server's state, and no MCP server
// process (nor anything it spawned) survives a new session or Pi's exit — checked in /proc. Servers
// run in the session here (`settings.sharedHost: false`: what ends with Pi is the point); a server in
// the shared host outlives the session by design (test/e2e/shared-host.test.ts).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type HttpFixture, startHttpFixture } from '../fixtures/servers/spawn.ts';
import { isHostCommand } from '../support/hosts.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { toolNames } from './harness/fake-llm.ts';
import {
  BUILTINS,
  EXTENSION,
  EXTENSION_PACKAGE,
  killMarked,
  markedProcesses,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import { descendantsOf, isRunning, killPids, listProcesses, type ProcInfo } from './harness/processes.ts';
import { type PiRpc, startPiRpc } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
let rpc: PiRpc | undefined;
let web: HttpFixture;
let locked: HttpFixture;
const marker = uniqueMarker('lifecycle');
const IN_SESSION = { sharedHost: false };
/** Pids a test saw (servers and their children), killed in afterEach if a failure left them behind. */
const seen: number[] = [];

beforeAll(async () => {
  await ensurePi();
  [web, locked] = await Promise.all([
    startHttpFixture(),
    startHttpFixture(['--require-token', 'right-token']),
  ]);
}, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  rpc?.kill();
  rpc = undefined;
  await world?.cleanup();
  world = undefined;
  killPids(seen.splice(0));
  killMarked(marker);
});
afterAll(async () => {
  await Promise.all([web?.stop(), locked?.stop()]);
});

/** Our MCP servers below Pi, and what they spawned (a fixture `--spawn-grandchild`). */
function serverTree(pi: PiRpc): ProcInfo[] {
  const procs = listProcesses().filter((p) => p.state !== 'Z');
  const servers = descendantsOf(pi.pid, procs).filter((p) => p.cmdline.includes(marker));
  const tree = [...servers, ...servers.flatMap((s) => descendantsOf(s.pid, procs))];
  seen.push(...tree.map((p) => p.pid));
  return tree;
}

function waitUntilGone(pids: number[]): Promise<void> {
  return vi.waitFor(() => expect(pids.filter(isRunning)).toEqual([]), { timeout: 10_000, interval: 50 });
}

async function mcpStatus(pi: PiRpc): Promise<string> {
  const out = await pi.runCommand('/mcp');
  expect(out.response).toMatchObject({ success: true, data: { disposition: 'handled' } });
  return out.notifications.map((n) => n.message).join('\n');
}

describe('server lifecycle in the real Pi', () => {
  it('/mcp over RPC lists every server with its state', async () => {
    world = await createWorld({
      mcpJson: {
        mcpServers: {
          fx: stdioEntry(marker),
          steady: stdioEntry(marker, [], { lifecycle: 'eager' }),
          web: { url: web.url },
          broken: stdioEntry(marker, ['--crash-on-start']),
          locked: { url: locked.url },
          off: stdioEntry(marker, [], { enabled: false }),
        },
      },
      // A project server, not loaded while the project is not trusted.
      projectMcpJson: { mcpServers: { local: stdioEntry(marker) } },
      script: [],
    });
    // Loaded as a package (`-e <repo>`), the way `pi install` users get it.
    rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION_PACKAGE] });
    // At session start, eager servers and servers whose tools are unknown connect; wait for all to settle.
    let status = '';
    await vi.waitFor(
      async () => {
        status = await mcpStatus(rpc!);
        expect(status).not.toMatch(/: (connecting|not started)/);
      },
      { timeout: 15_000, interval: 200 },
    );

    const line = (name: string) => status.split('\n').find((l) => l.startsWith(`${name}: `));
    // Connected servers run in the shared host (the default), which /mcp names with its pid.
    const shared = 'connected, shared \\(host pid \\d+\\)';
    expect(line('fx')).toMatch(new RegExp(`^fx: ${shared} — lazy, stdio, \\d+ tools(, \\d+ resources?)?$`));
    expect(line('steady')).toMatch(
      new RegExp(`^steady: ${shared} — eager, stdio, \\d+ tools(, \\d+ resources?)?$`),
    );
    expect(line('web')).toMatch(new RegExp(`^web: ${shared} — lazy, http, \\d+ tools(, \\d+ resources?)?$`));
    expect(line('broken')).toMatch(/^broken: failed(, retrying|, the next call retries) — lazy, stdio$/);
    expect(status).toMatch(/last error .*exited with code 3/);
    expect(status).toContain('fatal: fixture refuses to start (--crash-on-start)');
    expect(line('locked')).toBe('locked: needs auth — lazy, http');
    expect(status).toContain('needs authentication: run /mcp-auth locked');
    expect(line('off')).toMatch(/^off: skipped — disabled in the configuration/);
    expect(line('local')).toMatch(/^local: skipped — .*not trusted/);
    // No server of Pi's built-in MCP: every process below Pi is one of ours (a server that failed to
    // start in the host ran in the session, the host's own start is a detached child of Pi's, in its own
    // process group with its helpers: tsx's esbuild in a checkout, while it compiles).
    const all = descendantsOf(rpc.pid).filter((p) => p.state !== 'Z');
    const hosts = new Set(all.filter((p) => isHostCommand(p.cmdline)).map((p) => p.pid));
    const below = all.filter((p) => !hosts.has(p.pid) && !hosts.has(p.pgid));
    expect(below.filter((p) => !p.cmdline.includes(marker))).toEqual([]);
    expect(await rpc.close()).toEqual({ code: 0, signal: null });
  });

  it('a new session mid-run stops every server process, and so does Pi exiting', async () => {
    world = await createWorld({
      mcpJson: { settings: IN_SESSION, mcpServers: { fx: stdioEntry(marker, ['--spawn-grandchild']) } },
      script: [
        { toolCalls: [{ id: 'call_select', name: TOOL_SEARCH, arguments: { query: 'select:fx__echo' } }] },
        { toolCalls: [{ id: 'call_echo_1', name: 'fx__echo', arguments: { text: 'first session' } }] },
        { text: 'first done' },
        { toolCalls: [{ id: 'call_select_2', name: TOOL_SEARCH, arguments: { query: 'select:fx__echo' } }] },
        { toolCalls: [{ id: 'call_echo_2', name: 'fx__echo', arguments: { text: 'second session' } }] },
        { text: 'second done' },
      ],
    });
    rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION] });
    await rpc.promptAndWait('Echo in the first session');
    expect(toolResultFor(world.llm.requests[2]!.body, 'call_echo_1')).toBe('first session');
    const first = serverTree(rpc);
    // The server and the long-lived child it spawned.
    expect(first).toHaveLength(2);

    const reset = await rpc.send({ type: 'new_session' });
    expect(reset).toMatchObject({ success: true, data: { cancelled: false } });
    await waitUntilGone(first.map((p) => p.pid));

    // The new session starts clean: turn one has no tool loaded in the old one; the server comes back.
    await rpc.promptAndWait('Echo in the second session');
    expect(world.llm.errors).toEqual([]);
    expect(toolNames(world.llm.requests[3]!.body)).toEqual([...BUILTINS, TOOL_SEARCH]);
    expect(toolResultFor(world.llm.requests[5]!.body, 'call_echo_2')).toBe('second session');
    const second = serverTree(rpc);
    expect(second).toHaveLength(2);
    expect(second.map((p) => p.pid).filter((pid) => first.some((p) => p.pid === pid))).toEqual([]);

    expect(await rpc.close()).toEqual({ code: 0, signal: null });
    await waitUntilGone(second.map((p) => p.pid));
    expect(markedProcesses(marker)).toEqual([]);
  });

  it('Pi terminated by SIGTERM stops its servers and what they spawned', async () => {
    world = await createWorld({
      mcpJson: {
        settings: IN_SESSION,
        mcpServers: { fx: stdioEntry(marker, ['--spawn-grandchild'], { lifecycle: 'eager' }) },
      },
      script: [],
    });
    rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION] });
    const pi = rpc;
    // The eager server connects at session start, then spawns its child.
    await vi.waitFor(() => expect(serverTree(pi)).toHaveLength(2), { timeout: 10_000, interval: 50 });
    const tree = serverTree(pi);

    process.kill(pi.pid, 'SIGTERM');
    await pi.exited;
    await waitUntilGone(tree.map((p) => p.pid));
  });
});
