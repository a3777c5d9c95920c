// /mcp in the real Pi's terminal UI, as a person uses it: Pi runs in tmux, the test types and presses
// keys and reads the screen. The panel follows the actors live (a server connecting, then connected;
// crashed, backing off and retrying), and its keys reconnect, show tools, make one direct for the
// session (the model then sees it), disable a server, close, and hand a sign-in to /mcp-auth.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type HttpFixture, startHttpFixture } from '../fixtures/servers/spawn.ts';
import { stopHostsUnder } from '../support/hosts.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { toolNames } from './harness/fake-llm.ts';
import { EXTENSION, killMarked, markedProcesses, stdioEntry, uniqueMarker } from './harness/mcp.ts';
import { panelOf, startPiInTmux, type TmuxPi } from './harness/tmux.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
let pi: TmuxPi | undefined;
let locked: HttpFixture;
let flags: string | undefined;
const marker = uniqueMarker('panel');

beforeAll(async () => {
  await ensurePi();
  locked = await startHttpFixture(['--require-token', 'right-token']);
}, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await pi?.stop();
  pi = undefined;
  await world?.cleanup();
  world = undefined;
  killMarked(marker);
  if (flags) rmSync(flags, { recursive: true, force: true });
  flags = undefined;
});
afterAll(async () => {
  await locked?.stop();
});

const panelShows = (test: RegExp) => (screen: string) => test.test(panelOf(screen));

describe('/mcp panel in the real Pi TUI', () => {
  it('follows the actors live and acts on keys', { timeout: 180_000 }, async () => {
    // fx starts only once `hold` is gone, and fails to start while `fail` exists.
    flags = mkdtempSync(join(tmpdir(), 'pi-panel-flags-'));
    const hold = join(flags, 'hold');
    const fail = join(flags, 'fail');
    writeFileSync(hold, '');
    world = await createWorld({
      mcpJson: {
        // The panel follows the session's own actors through a crash, backoff and retry: servers run
        // in the session (the host's copy's state beside a shared one: test/unit/commands/mcp-panel.test.ts).
        settings: { sharedHost: false },
        mcpServers: {
          fx: stdioEntry(marker, ['--wait-while', hold, '--fail-start-while', fail], {
            lifecycle: 'keep-alive',
          }),
          web: stdioEntry(marker),
          locked: { url: locked.url },
        },
      },
      script: [{ text: 'All done.' }],
    });

    pi = await startPiInTmux({ dir: world.dir, extensions: [EXTENSION], columns: 80, rows: 40 });
    const tui = pi;
    // Our status bar entry: the session has started.
    await tui.waitForScreen(/MCP \d\/3/, { timeoutMs: 60_000 });
    tui.type('/mcp');
    tui.press('Enter');

    // fx is held in its start: connecting, live.
    let screen = await tui.waitForScreen(panelShows(/› fx {2}◌ connecting for \d+ s/));
    expect(panelOf(screen)).toContain(
      '↑↓ select · enter tools · r reconnect · a sign in · e enable/disable · esc close',
    );
    await tui.waitForScreen(panelShows(/locked {2}! needs sign-in for \d+ s · press a to sign in/));
    screen = await tui.waitForScreen(panelShows(/web {2}● connected/));
    expect(panelOf(screen)).toMatch(/lazy · stdio · \d+ tools(, \d+ resources?)? · ≈\d+ tokens if direct/);
    // Still held: the panel shows the time it has been connecting.
    expect(panelOf(screen)).toMatch(/› fx {2}◌ connecting for \d+ s/);

    rmSync(hold);
    screen = await tui.waitForScreen(panelShows(/› fx {2}● connected for \d+ s/));
    expect(panelOf(screen)).toMatch(/keep-alive · stdio · \d+ tools/);
    expect(panelOf(screen)).toContain('init → connecting → connected');
    expect(screen).toMatch(/MCP 2\/3 · locked needs sign-in/);

    // Crash it while restarts fail: backoff with the countdown, then the retry, then backoff again.
    writeFileSync(fail, '');
    const fxProcess = markedProcesses(marker).find((p) => p.cmdline.includes('--wait-while'));
    expect(fxProcess).toBeDefined();
    process.kill(fxProcess!.pid, 'SIGKILL');
    screen = await tui.waitForScreen(
      panelShows(/› fx {2}✗ failed for \d+ s · retry in \d+ s \(attempt \d+\)/),
    );
    expect(panelOf(screen)).toContain('connected → backoff');
    screen = await tui.waitForScreen(
      panelShows(
        // The flag file's path wraps where the temp folder's length puts it.
        /connected → backoff → connecting → backoff[\s\S]*fatal:\s[\s\S]*?fail\s+exists\s+\(--fail-start-while\)/,
      ),
    );
    expect(panelOf(screen)).toMatch(/last error \d+ s ago: .*exited with code 3/);
    await tui.waitForScreen(/MCP 1\/3 · locked needs sign-in · fx failing/);

    // r reconnects now (through closed: not the backoff's own retry).
    rmSync(fail);
    tui.press('r');
    screen = await tui.waitForScreen(panelShows(/› fx {2}● connected[\s\S]*closed → connecting → connected/));
    expect(panelOf(screen)).toContain('fx reconnected.');

    // Its tools with descriptions; d makes one direct for the session.
    tui.press('t');
    screen = await tui.waitForScreen(
      panelShows(/fx · \d+ tools(, \d+ resources?)? · ≈\d+ tokens if all direct/),
    );
    expect(panelOf(screen)).toMatch(/› fx__add {2}deferred ≈\d+ tokens\n {4}Adds two numbers\./);
    tui.press('d');
    await tui.waitForScreen(panelShows(/› fx__add {2}direct \(this session\)/));
    tui.press('Escape');
    await tui.waitForScreen(panelShows(/› fx {2}● connected/));

    // Disable web for the session.
    tui.press('Down', 'Down');
    await tui.waitForScreen(panelShows(/› web {2}●/));
    tui.press('e');
    screen = await tui.waitForScreen(panelShows(/› web {2}○ disabled for this session · e enables it/));
    await tui.waitForScreen(/MCP 1\/2 · locked needs sign-in/);

    // Narrow terminal: still the whole panel, hints wrapped, nothing cut mid-row that matters.
    tui.resize(50, 40);
    screen = await tui.waitForScreen(panelShows(/› web {2}○ disabled for this[\s\S]*esc close/));
    for (const line of panelOf(screen).split('\n')) expect(line.length).toBeLessThanOrEqual(50);
    tui.resize(80, 40);

    // Esc closes; the editor is back and the model sees the tool made direct.
    tui.press('Escape');
    await tui.waitForScreen((s) => panelOf(s) === '' && !s.includes('esc close'));
    tui.type('Hello');
    tui.press('Enter');
    await tui.waitForScreen(/All done\./);
    const first = world.llm.requests[0]!.body;
    expect(toolNames(first)).toContain('fx__add');
    expect(toolNames(first).filter((n) => n.startsWith('web__'))).toEqual([]);

    // a in the panel hands the selected server to /mcp-auth (the panel closes for its flow).
    tui.type('/mcp');
    tui.press('Enter');
    await tui.waitForScreen(panelShows(/› fx {2}●/));
    tui.press('Down');
    await tui.waitForScreen(panelShows(/› locked {2}!/));
    tui.press('a');
    await tui.waitForScreen(/locked: retrying with the configured credentials/);
    expect(panelOf(tui.screen())).toBe('');

    await pi.stop();
    // The server ran in the shared host the session started: nothing is left once it stops.
    await stopHostsUnder(world!.dir.root);
    await vi.waitFor(() => expect(markedProcesses(marker)).toEqual([]), { timeout: 10_000, interval: 100 });
  });
});
