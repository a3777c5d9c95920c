// A user's day in the real Pi TUI (tmux) with server-everything, then the CLI beside it, then a second
// Pi session: search and call, a form that says its defaults and ranges up front, a sampling request
// denied (one error prefix), a prompt found through `/` autocomplete, `d` on a tool ToolSearch loaded,
// the CLI's tools, call and inspector, and the next session still finding every tool.
import { spawn } from 'node:child_process';
import { basename, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCliBin } from '../support/output-channels.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, EXTENSION_PACKAGE, TOOL_SEARCH, toolResultFor } from './harness/mcp.ts';
import { runPiJson } from './harness/run-pi.ts';
import { startPiInTmux, type TmuxPi } from './harness/tmux.ts';
import { createWorld, type World } from './harness/world.ts';

const EVERYTHING_ENTRY = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const BIN = resolve(import.meta.dirname, '../../bin/pi-mcp-actors.mjs');
const ECHO = 'everything__echo';
const FORM = 'everything__trigger-elicitation-request';
const SAMPLE = 'everything__trigger-sampling-request';

let world: World | undefined;
let pi: TmuxPi | undefined;
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await pi?.stop();
  pi = undefined;
  await world?.cleanup();
  world = undefined;
});

const everything = { command: process.execPath, args: [EVERYTHING_ENTRY], lifecycle: 'eager' };

/** The panel's lines (between its top rule and its key hints). */
function panelOf(screen: string): string {
  const lines = screen.split('\n');
  const end = lines.findLastIndex((l) => /esc (close|back)$/.test(l));
  if (end < 0) return '';
  const rules = lines.flatMap((l, i) => (i < end && /^─+$/.test(l) ? [i] : []));
  const top = rules.at(-2);
  return top === undefined ? '' : lines.slice(top + 1, end + 1).join('\n');
}

describe('a day with pi-mcp-actors', () => {
  it('in the Pi TUI, then the CLI, then a second Pi session', { timeout: 300_000 }, async () => {
    world = await createWorld({
      mcpJson: { mcpServers: { everything } },
      settings: { extensions: ['-builtin:mcp'] },
      script: [
        {
          toolCalls: [
            {
              id: 'call_search',
              name: TOOL_SEARCH,
              arguments: { query: `select:${ECHO},${FORM},${SAMPLE}` },
            },
          ],
        },
        { toolCalls: [{ id: 'call_echo', name: ECHO, arguments: { message: 'hello day' } }] },
        { text: 'Echo done.' },
        { toolCalls: [{ id: 'call_form', name: FORM, arguments: {} }] },
        { text: 'Form done.' },
        { toolCalls: [{ id: 'call_sample', name: SAMPLE, arguments: { prompt: 'Say hi', maxTokens: 20 } }] },
        { text: 'Sampling done.' },
      ],
    });
    // The package folder, as a user adds it: Pi finds index.ts through package.json and names it by its folder.
    const tui = await startPiInTmux({
      dir: world.dir,
      extensions: [EXTENSION_PACKAGE],
      columns: 110,
      rows: 45,
    });
    pi = tui;
    const start = await tui.waitForScreen(/MCP 1\/1/, { timeoutMs: 60_000 });
    expect(start).toMatch(new RegExp(`\\[Extensions\\]\\n {2}${basename(EXTENSION_PACKAGE)}\\n`));
    // Quieted as the README says: no "built-in extension mcp was not loaded".
    expect(start).not.toContain('was not loaded');

    // /mcp: the server with one tool count, as /mcp status and the CLI say it.
    tui.type('/mcp');
    tui.press('Enter');
    let screen = await tui.waitForScreen((s) => /everything {2}● connected/.test(panelOf(s)));
    const counted = panelOf(screen).match(/eager · stdio · (\d+) tools(?:, (\d+) resources)?/);
    expect(counted).not.toBeNull();
    const toolCount = Number(counted![1]);
    tui.press('Escape');
    await tui.waitForScreen((s) => panelOf(s) === '');

    // Search and call.
    tui.type('Echo hello');
    tui.press('Enter');
    await tui.waitForScreen(/Echo done\./, { timeoutMs: 60_000 });
    expect(toolResultFor(world.llm.requests[2]!.body, 'call_echo')).toContain('hello day');

    // A form: field n of m, defaults and ranges shown before answering; a date that does not exist refused.
    tui.type('Fill the form');
    tui.press('Enter');
    await tui.waitForScreen(/asks: /, { timeoutMs: 60_000 });
    tui.press('Enter'); // Answer
    for (let field = 1; field <= 13; field++) {
      screen = await tui.waitForScreen(new RegExp(`field ${field} of 13`));
      if (field === 1) tui.type('Grace Hopper');
      if (field === 3) expect(screen).toMatch(/String with default \(optional\).*default: It was a dark/s);
      if (field === 6) {
        tui.type('1815-13-45');
        tui.press('Enter');
        await tui.waitForScreen(/expected a valid date \(YYYY-MM-DD\)/);
      }
      if (field === 7) expect(screen).toMatch(/Integer.*default: 42/s);
      if (field === 8) expect(screen).toMatch(/a\s+number\s+from\s+0\s+to\s+1000;\s+default:\s+3\.14/);
      tui.press('Enter');
    }
    await tui.waitForScreen(/Form done\./, { timeoutMs: 60_000 });
    const form = toolResultFor(world.llm.requests[4]!.body, 'call_form') ?? '';
    expect(form).toContain('Grace Hopper');

    // Sampling denied: the model reads one error prefix.
    tui.type('Sample something');
    tui.press('Enter');
    await tui.waitForScreen(/wants to use your model/, { timeoutMs: 60_000 });
    tui.press('Down', 'Down', 'Enter'); // Deny
    await tui.waitForScreen(/Sampling done\./, { timeoutMs: 60_000 });
    const sampled = toolResultFor(world.llm.requests[6]!.body, 'call_sample') ?? '';
    expect(sampled).toMatch(/Declined: the user did not allow this sampling request/);
    expect(sampled.match(/MCP error -32600/g) ?? []).toHaveLength(1);

    // A prompt as a slash command, found through `/` autocomplete.
    tui.type('/mcp__everything__ar');
    await tui.waitForScreen(/mcp__everything__args-prompt/);
    tui.press(...Array.from({ length: 24 }, () => 'BSpace'));
    await tui.waitForScreen((s) => !s.includes('mcp__everything__ar'));

    // d on a tool ToolSearch loaded: labelled so, and made direct (not unloaded).
    tui.type('/mcp');
    tui.press('Enter');
    await tui.waitForScreen((s) => /everything {2}● connected/.test(panelOf(s)));
    tui.press('t');
    const selected = (s: string) => panelOf(s).match(/› (\S+)/)?.[1];
    await tui.waitForScreen((s) => selected(s) !== undefined);
    for (let i = 0; i < 60 && selected(tui.screen()) !== ECHO; i++) {
      const before = selected(tui.screen());
      tui.press('Down');
      await tui.waitForScreen((s) => selected(s) !== before);
    }
    screen = await tui.waitForScreen((s) => /› everything__echo {2}loaded by ToolSearch/.test(panelOf(s)));
    tui.press('d');
    await tui.waitForScreen(/everything__echo is direct for this session: the model sees it on every turn\./);
    tui.press('Escape');
    await tui.waitForScreen((s) => /› everything {2}● connected/.test(panelOf(s)));
    tui.press('Escape');
    await tui.waitForScreen((s) => panelOf(s) === '');
    await tui.stop();
    pi = undefined;

    // The CLI beside it: the same tools, the same count, a call.
    const { home, agentDir, projectDir } = world.dir;
    const dirs = { cwd: projectDir, home, agentDir };
    const tools = await runCliBin(['tools', 'everything', '--json'], dirs);
    expect(tools.code, tools.stderr).toBe(0);
    const listed = JSON.parse(tools.stdout) as Array<{ tool: string; name: string }>;
    expect(listed.map((t) => t.tool)).toEqual(
      expect.arrayContaining(['trigger-elicitation-request', 'echo']),
    );
    const status = await runCliBin(['status'], dirs);
    expect(status.stdout).toContain(`${toolCount} tools`);
    const call = await runCliBin(['call', ECHO, '{"message":"from the CLI"}'], dirs);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('from the CLI');

    // A second Pi session still finds every tool.
    world.llm.push(
      { toolCalls: [{ id: 'call_again', name: TOOL_SEARCH, arguments: { query: `select:${FORM}` } }] },
      { text: 'Found it.' },
    );
    const before = world.llm.requests.length;
    const second = await runPiJson({ dir: world.dir, extensions: [EXTENSION], prompt: 'Find the form tool' });
    expect(second.code, second.stderr).toBe(0);
    const again = toolResultFor(world.llm.requests[before + 1]!.body, 'call_again') ?? '';
    expect(again).not.toMatch(/Unknown tool names/);
    expect(again).toContain(FORM);
  });

  it('the CLI inspector prints a URL that opens', { timeout: 60_000 }, async () => {
    world = await createWorld({ mcpJson: { mcpServers: {} }, script: [] });
    const { home, agentDir, projectDir } = world.dir;
    const child = spawn(process.execPath, [BIN, 'inspect'], {
      cwd: projectDir,
      env: { PATH: process.env.PATH, HOME: home, PI_CODING_AGENT_DIR: agentDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      const url = await new Promise<string>((done, fail) => {
        child.stdout.on('data', (d) => {
          out += d;
          const match = out.match(/Inspector: (http:\/\/127\.0\.0\.1:\d+\/\S*)/);
          if (match) done(match[1]!);
        });
        child.on('exit', () => fail(new Error(`inspect exited: ${out}`)));
      });
      const page = await fetch(url);
      expect(page.status, url).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
