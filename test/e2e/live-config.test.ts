// A live config in the real Pi (issue 37, DESIGN.md rule 14): the user's mcp.json is edited while a
// print-mode session runs, and the session follows at the next turn without /reload. The scripted
// model makes the edits itself (its step functions run between Pi's turns), so the edits and the turns
// are ordered by the conversation, not by sleeps. Pi runs once per test, with the shared host on (the
// default) and off.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, toolDeclaration } from './harness/fake-llm.ts';
import {
  EXTENSION,
  killMarked,
  lastToolResult,
  loadedByToolSearch,
  markedProcesses,
  stdioEntry,
  TOOL_SEARCH,
  uniqueMarker,
} from './harness/mcp.ts';
import { type PiRpc, runPiPrint, startPiRpc } from './harness/run-pi.ts';
import { startPiInTmux, type TmuxPi } from './harness/tmux.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
const sessions: PiRpc[] = [];
let tui: TmuxPi | undefined;
const markers: string[] = [];
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  for (const pi of sessions.splice(0)) pi.kill();
  await tui?.stop();
  tui = undefined;
  await world?.cleanup();
  world = undefined;
  killMarked(...markers.splice(0));
});

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  toolCalls: [{ id, name, arguments: args }],
});

/** Resolves once no process carries `marker` (the removed server's process has ended), or says it is still there. */
async function processesEnd(marker: string, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = markedProcesses(marker).filter((p) => p.state !== 'Z').length;
    if (left === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const description = (body: ChatRequestBody) => toolDeclaration(body, TOOL_SEARCH)?.function.description;

describe.each([
  { host: 'the shared host', settings: {} },
  { host: 'servers in the session', settings: { sharedHost: false } },
])('a live config in the real Pi, print mode, with $host', ({ settings }) => {
  it('adds, removes, survives a bad save: (a) select: loads the added server, (b) its tool answers, (c) the removed one is gone with its process, (d) Pi finishes', async () => {
    const alpha = uniqueMarker('alpha');
    const beta = uniqueMarker('beta');
    markers.push(alpha, beta);
    const mcp = (servers: Record<string, unknown>) => ({ settings, mcpServers: servers });
    let mcpFile = '';
    const save = (content: unknown) =>
      writeFileSync(mcpFile, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    const seen: Record<string, number> = {};
    world = await createWorld({
      mcpJson: mcp({ alpha: stdioEntry(alpha) }),
      script: [
        call('c0', TOOL_SEARCH, { query: 'select:alpha__echo' }),
        call('c1', 'alpha__echo', { text: 'one' }),
        // The user adds beta while the model thinks.
        () => {
          save(mcp({ alpha: stdioEntry(alpha), beta: stdioEntry(beta) }));
          return call('c2', 'alpha__echo', { text: 'two' });
        },
        call('c3', TOOL_SEARCH, { query: 'select:beta__echo' }),
        (body) => {
          seen.betaLoaded = loadedByToolSearch(lastToolResult(body)).includes('beta__echo') ? 1 : 0;
          return call('c4', 'beta__echo', { text: 'from beta' });
        },
        // The user removes alpha.
        () => {
          seen.alphaAlive = markedProcesses(alpha).length;
          save(mcp({ beta: stdioEntry(beta) }));
          return call('c5', 'beta__echo', { text: 'three' });
        },
        call('c6', 'alpha__echo', { text: 'gone?' }),
        // A bad save: not JSON.
        async () => {
          seen.alphaLeft = await processesEnd(alpha);
          save('{ "mcpServers": { "beta": ');
          return call('c7', 'beta__echo', { text: 'still here' });
        },
        // A good save again: beta changed (restarts after its calls); nothing the model reads changes.
        () => {
          seen.betaPid = markedProcesses(beta)[0]?.pid ?? 0;
          save(mcp({ beta: stdioEntry(beta, ['--pages', '1']) }));
          return call('c8', 'beta__echo', { text: 'restarted' });
        },
        () => {
          const now = markedProcesses(beta).map((p) => p.pid);
          seen.betaRestarted = now.length > 0 && !now.includes(seen.betaPid!) ? 1 : 0;
          return { text: 'done' };
        },
      ],
    });
    mcpFile = join(world.dir.agentDir, 'mcp.json');

    const run = await runPiPrint({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Use the MCP tools',
      timeoutMs: 60_000,
    });

    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const bodies = world.llm.requests.map((r) => r.body);
    const result = (i: number) => lastToolResult(bodies[i]!);
    expect(result(2)).toBe('one');
    expect(result(3)).toBe('two');
    // (a) the server added mid-session is loaded by select: on the next turn
    expect(seen.betaLoaded, result(4)).toBe(1);
    // (b) its tool answers
    expect(result(5)).toBe('from beta');
    expect(seen.alphaAlive).toBeGreaterThan(0);
    // (c) the removed server's tool reaches no server, and its process has ended
    expect(result(7)).toContain(`"alpha" was removed from the config (${mcpFile})`);
    expect(seen.alphaLeft).toBe(0);
    // (d) after an invalid save, the remaining server still answers, and Pi finishes
    expect(result(8)).toBe('still here');
    expect(run.stdout).toContain('done');
    // ToolSearch's description changed between turns, and only when the servers changed.
    expect(description(bodies[1]!)).toBe(description(bodies[0]!));
    expect(description(bodies[3]!)).toContain('beta');
    expect(description(bodies[0]!)).not.toContain('beta');
    expect(description(bodies[8]!)).not.toContain('alpha');
    expect(description(bodies[8]!)).toBe(description(bodies[7]!));
    // The repaired save applied: beta restarted, and the request after it declared the same tools.
    expect(result(9)).toBe('restarted');
    expect(seen.betaPid).toBeGreaterThan(0);
    expect(seen.betaRestarted).toBe(1);
    expect(bodies[9]!.tools).toEqual(bodies[8]!.tools);
  }, 90_000);
});

describe('a live config in the real Pi, print mode: a bad save keeps the last good config of its file only', () => {
  it('the user file broken, a project file gains a server meanwhile: select: loads it and it answers; the repaired user file applies', async () => {
    const alpha = uniqueMarker('alpha');
    const pen = uniqueMarker('pen');
    const beta = uniqueMarker('beta');
    markers.push(alpha, pen, beta);
    let userFile = '';
    let projectFile = '';
    // The project's servers are allowed by the user file (trustedProjectFolders): broken, its last good
    // version still allows them.
    const user = (alphaFlags: string[] = []) => ({
      settings: { trustedProjectFolders: [world!.dir.projectDir] },
      mcpServers: { alpha: stdioEntry(alpha, alphaFlags) },
    });
    const save = (file: string, content: unknown) =>
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    const seen: Record<string, number> = {};
    world = await createWorld({
      mcpJson: {},
      // `.mcp.json`, not `.pi/mcp.json`: Pi trusts a folder without the latter, in print mode too.
      files: { 'project/.mcp.json': { mcpServers: { pen: stdioEntry(pen) } } },
      script: [
        call('p0', TOOL_SEARCH, { query: 'select:alpha__echo' }),
        call('p1', 'alpha__echo', { text: 'one' }),
        // The user's file is saved broken; the project file gains beta while the model thinks.
        () => {
          save(userFile, '{\n  "mcpServers": {\n    "alpha": \n');
          save(projectFile, { mcpServers: { pen: stdioEntry(pen), beta: stdioEntry(beta) } });
          return call('p2', 'alpha__echo', { text: 'two' });
        },
        call('p3', TOOL_SEARCH, { query: 'select:beta__echo' }),
        (body) => {
          seen.betaLoaded = loadedByToolSearch(lastToolResult(body)).includes('beta__echo') ? 1 : 0;
          return call('p4', 'beta__echo', { text: 'from beta' });
        },
        // The user file repaired, with alpha changed: alpha restarts.
        () => {
          seen.alphaPid = markedProcesses(alpha)[0]?.pid ?? 0;
          save(userFile, user(['--pages', '1']));
          return call('p5', 'alpha__echo', { text: 'three' });
        },
        () => {
          const now = markedProcesses(alpha).map((p) => p.pid);
          seen.alphaRestarted = now.length > 0 && !now.includes(seen.alphaPid!) ? 1 : 0;
          return { text: 'done' };
        },
      ],
    });
    userFile = join(world.dir.agentDir, 'mcp.json');
    projectFile = join(world.dir.projectDir, '.mcp.json');
    save(userFile, user());

    const run = await runPiPrint({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Use the MCP tools',
      timeoutMs: 60_000,
    });

    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const bodies = world.llm.requests.map((r) => r.body);
    const result = (i: number) => lastToolResult(bodies[i]!);
    expect(result(2)).toBe('one');
    // The user's servers keep their last good version while the file is broken.
    expect(result(3)).toBe('two');
    // The project file's new server applied meanwhile: select: loads it, and it answers.
    expect(seen.betaLoaded, result(4)).toBe(1);
    expect(result(5)).toBe('from beta');
    // The repaired user file applies: alpha restarted with its new arguments, and answers.
    expect(result(6)).toBe('three');
    expect(seen.alphaPid).toBeGreaterThan(0);
    expect(seen.alphaRestarted).toBe(1);
    expect(run.stdout).toContain('done');
    // The bad save was told once, with the file and the line.
    const told = run.stderr.split('\n').filter((line) => line.includes('config edit not applied'));
    expect(told, run.stderr).toHaveLength(1);
    expect(told[0]).toContain(`the last good config stays for ${userFile}`);
    expect(told[0]).toMatch(/line \d+/);
  }, 90_000);
});

describe('a live config in the real Pi, RPC mode, servers in the session', () => {
  const IN_SESSION = { sharedHost: false };

  it('an edit while a call runs: the call finishes; a changed entry restarts, a disabled one closes after its call, an added eager one starts; /mcp says what the edit did', async () => {
    const alpha = uniqueMarker('alpha');
    const notes = uniqueMarker('notes');
    const gamma = uniqueMarker('gamma');
    markers.push(alpha, notes, gamma);
    let gate = '';
    world = await createWorld({
      mcpJson: {
        settings: IN_SESSION,
        mcpServers: { alpha: stdioEntry(alpha, ['--gate-tools']), notes: stdioEntry(notes) },
      },
      script: [
        call('s0', TOOL_SEARCH, { query: 'select:alpha__gated_progress,notes__echo' }),
        call('s1', 'notes__echo', { text: 'v1' }),
        () => call('s2', 'alpha__gated_progress', { path: gate, intervalMs: 50 }),
        { text: 'first done' },
        call('s4', 'notes__echo', { text: 'v2' }),
        { text: 'second done' },
      ],
    });
    gate = world.file('gate');
    writeFileSync(gate, '');
    const mcpFile = join(world.dir.agentDir, 'mcp.json');
    const pi = await startPiRpc({ dir: world.dir, extensions: [EXTENSION] });
    sessions.push(pi);

    const first = pi.promptAndWait('Run the long call', { timeoutMs: 60_000 });
    await pi.waitForRecord((r) => r.type === 'tool_execution_update' && r.toolCallId === 's2', {
      timeoutMs: 30_000,
    });
    const notesBefore = markedProcesses(notes).map((p) => p.pid);
    expect(notesBefore.length).toBeGreaterThan(0);
    const since = pi.records.length;
    writeFileSync(
      mcpFile,
      JSON.stringify({
        settings: IN_SESSION,
        mcpServers: {
          alpha: stdioEntry(alpha, ['--gate-tools'], { enabled: false }),
          notes: stdioEntry(notes, [], { env: { NOTES_VERSION: '2' } }),
          gamma: stdioEntry(gamma, [], { lifecycle: 'eager' }),
        },
      }),
    );
    const told = await pi.waitForRecord(
      (r) => r.type === 'extension_ui_request' && r.method === 'notify' && /config changed/.test(r.message),
      { since, timeoutMs: 20_000 },
    );
    expect(told.message).toContain('config changed: +gamma −alpha, notes restarted');
    // The call in flight keeps its server until it answers; the changed server had none and restarts.
    expect(await processesEnd(notes)).toBe(0);
    expect(markedProcesses(alpha).length).toBeGreaterThan(0);
    rmSync(gate);
    const run = await first;
    expect(run.response.success).toBe(true);
    const bodies = () => world!.llm.requests.map((r) => r.body);
    expect(lastToolResult(bodies()[3]!)).toMatch(/^gate opened after \d+ steps$/);
    expect(await processesEnd(alpha)).toBe(0);
    expect(markedProcesses(gamma).length).toBeGreaterThan(0);

    await pi.promptAndWait('Echo again', { timeoutMs: 30_000 });
    expect(lastToolResult(bodies()[5]!)).toBe('v2');
    const notesAfter = markedProcesses(notes).map((p) => p.pid);
    expect(notesAfter.length).toBeGreaterThan(0);
    expect(notesAfter.some((pid) => notesBefore.includes(pid))).toBe(false);
    const status = await pi.runCommand('/mcp');
    const text = JSON.stringify(status.records);
    expect(text).toContain('Config: config changed: +gamma −alpha, notes restarted');
    expect(world.llm.errors).toEqual([]);
  }, 120_000);

  it('two sessions at once follow the same edit', async () => {
    const alpha = uniqueMarker('alpha');
    const beta = uniqueMarker('beta');
    markers.push(alpha, beta);
    world = await createWorld({
      mcpJson: { settings: IN_SESSION, mcpServers: { alpha: stdioEntry(alpha) } },
      // Each prompt: load beta's echo, call it with the prompt's words, answer.
      script: (body) => {
        const last = body.messages.at(-1)!;
        if (last.role === 'user') return call('t0', TOOL_SEARCH, { query: 'select:beta__echo' });
        if (last.tool_call_id === 't0') {
          const user = body.messages.filter((m) => m.role === 'user').at(-1);
          return call('t1', 'beta__echo', { text: JSON.stringify(user?.content).replace(/\W/g, '') });
        }
        return { text: 'ok' };
      },
    });
    const mcpFile = join(world.dir.agentDir, 'mcp.json');
    const [one, two] = await Promise.all([
      startPiRpc({ dir: world.dir, extensions: [EXTENSION] }),
      startPiRpc({ dir: world.dir, extensions: [EXTENSION] }),
    ]);
    sessions.push(one!, two!);
    writeFileSync(
      mcpFile,
      JSON.stringify({
        settings: IN_SESSION,
        mcpServers: { alpha: stdioEntry(alpha), beta: stdioEntry(beta) },
      }),
    );
    await Promise.all([
      one!.promptAndWait('sessionone', { timeoutMs: 60_000 }),
      two!.promptAndWait('sessiontwo', { timeoutMs: 60_000 }),
    ]);
    const answers = world.llm.requests
      .map((r) => r.body)
      .filter((b) => b.messages.at(-1)?.tool_call_id === 't1')
      .map((b) => lastToolResult(b));
    expect(answers.map((a) => a.replace(/\W/g, '')).sort()).toEqual(
      ['sessionone', 'sessiontwo'].map((s) => expect.stringContaining(s)),
    );
    expect(world.llm.errors).toEqual([]);
  }, 120_000);

  it('a bad save is told once (file, line), /mcp shows it, the next good save recovers; a broken entry keeps its server while a new one starts; a project file that appears starts nothing by itself', async () => {
    const alpha = uniqueMarker('alpha');
    const local = uniqueMarker('local');
    const gamma = uniqueMarker('gamma');
    markers.push(alpha, local, gamma);
    world = await createWorld({
      mcpJson: { settings: IN_SESSION, mcpServers: { alpha: stdioEntry(alpha) } },
      // A ToolSearch starts the session's runtime (it loads after the first request): its watcher runs from then on.
      script: [
        call('b0', TOOL_SEARCH, { query: 'select:alpha__echo' }),
        call('b1', 'alpha__echo', { text: 'warm' }),
        { text: 'ok' },
      ],
    });
    const mcpFile = join(world.dir.agentDir, 'mcp.json');
    const pi = await startPiRpc({ dir: world.dir, extensions: [EXTENSION] });
    sessions.push(pi);
    await pi.promptAndWait('start', { timeoutMs: 30_000 });
    const notices = (since: number, pattern: RegExp) =>
      pi.records
        .slice(since)
        .filter((r) => r.type === 'extension_ui_request' && r.method === 'notify' && pattern.test(r.message));

    let since = pi.records.length;
    writeFileSync(mcpFile, '{\n  "mcpServers": {\n    "alpha": \n');
    const bad = await pi.waitForRecord(
      (r) => r.type === 'extension_ui_request' && r.method === 'notify' && /not applied/.test(r.message),
      { since, timeoutMs: 20_000 },
    );
    expect(bad.message).toContain(`config edit not applied, the last good config stays for ${mcpFile}`);
    expect(bad.message).toMatch(/line \d+/);
    // The same broken file saved again is not told again.
    writeFileSync(mcpFile, '{\n  "mcpServers": {\n    "alpha": \n');
    const status = await pi.runCommand('/mcp');
    expect(JSON.stringify(status.records)).toContain('Config: config edit not applied');
    expect(notices(since, /^MCP config edit not applied/)).toHaveLength(1);
    expect(markedProcesses(alpha).length).toBeGreaterThan(0);

    since = pi.records.length;
    writeFileSync(
      mcpFile,
      JSON.stringify({ settings: IN_SESSION, mcpServers: { alpha: stdioEntry(alpha, ['--v2']) } }),
    );
    const fixed = await pi.waitForRecord(
      (r) => r.type === 'extension_ui_request' && r.method === 'notify' && /config changed/.test(r.message),
      { since, timeoutMs: 20_000 },
    );
    expect(fixed.message).toContain('config changed: alpha restarted');

    // One entry broken beside a new one: the broken server keeps its last good definition, the new one starts.
    since = pi.records.length;
    writeFileSync(
      mcpFile,
      JSON.stringify({
        settings: IN_SESSION,
        mcpServers: {
          alpha: { ...stdioEntry(alpha, ['--v2']), args: 'not a list' },
          gamma: stdioEntry(gamma, [], { lifecycle: 'eager' }),
        },
      }),
    );
    const entry = await pi.waitForRecord(
      (r) => r.type === 'extension_ui_request' && r.method === 'notify' && /not applied/.test(r.message),
      { since, timeoutMs: 20_000 },
    );
    expect(entry.message).toContain(`the last good config stays for ${mcpFile} mcpServers.alpha.args`);
    const added = await pi.waitForRecord(
      (r) => r.type === 'extension_ui_request' && r.method === 'notify' && /config changed/.test(r.message),
      { since, timeoutMs: 20_000 },
    );
    expect(added.message).toContain('config changed: +gamma');
    expect(added.message).not.toContain('alpha');
    const panel = JSON.stringify((await pi.runCommand('/mcp')).records);
    expect(panel).toContain('Config: config edit not applied');
    expect(panel).not.toMatch(/alpha: skipped/);

    // A project file appears: its server waits for the user's consent and starts nothing.
    since = pi.records.length;
    writeFileSync(
      join(world.dir.projectDir, '.mcp.json'),
      JSON.stringify({ mcpServers: { local: stdioEntry(local, [], { lifecycle: 'eager' }) } }),
    );
    const waiting = await pi.waitForRecord(
      (r) =>
        r.type === 'extension_ui_request' &&
        r.method === 'notify' &&
        /waits for your consent/.test(r.message),
      { since, timeoutMs: 20_000 },
    );
    expect(waiting.message).toContain('local');
    expect(markedProcesses(local)).toEqual([]);
    expect(world.llm.errors).toEqual([]);
  }, 120_000);
});

describe('a live config in the real Pi TUI', () => {
  it('a project entry added mid-session is asked about; allowed, it starts and the status line says so', async () => {
    const mine = uniqueMarker('mine');
    const local = uniqueMarker('local');
    markers.push(mine, local);
    world = await createWorld({
      mcpJson: { settings: { sharedHost: false }, mcpServers: { mine: stdioEntry(mine) } },
      script: [call('u0', TOOL_SEARCH, { query: 'select:mine__echo' }), { text: 'Searched.' }],
    });
    tui = await startPiInTmux({ dir: world.dir, extensions: [EXTENSION], columns: 160, rows: 50 });
    // A first prompt: the session's runtime (and its watcher) runs from then on.
    await tui.waitForScreen(/MCP/, { timeoutMs: 60_000 });
    tui.type('search');
    tui.press('Enter');
    await tui.waitForScreen(/Searched\./, { timeoutMs: 60_000 });
    writeFileSync(
      join(world.dir.projectDir, '.mcp.json'),
      JSON.stringify({ mcpServers: { local: stdioEntry(local, [], { lifecycle: 'eager' }) } }),
    );
    await tui.waitForScreen(/Start the MCP server "local" from .*\?/, { timeoutMs: 30_000 });
    expect(markedProcesses(local)).toEqual([]);
    tui.press('Down');
    await tui.waitForScreen(/→ Allow\n/);
    tui.press('Enter');
    await tui.waitForScreen(/config changed: \+local/, { timeoutMs: 30_000 });
    const deadline = Date.now() + 20_000;
    while (markedProcesses(local).length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(markedProcesses(local).length).toBeGreaterThan(0);
  }, 180_000);
});
