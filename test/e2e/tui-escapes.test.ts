// A hostile server in the real Pi TUI (tmux, Pi's defaults): its URL elicitation, form and stderr are
// shown, the link intact, and none of its escapes acts on the terminal — the pane title stays Pi's and
// no OSC 52 clipboard write reaches tmux's paste buffers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK } from '../fixtures/servers/hostile-text.ts';
import { fixtureArgs } from '../fixtures/servers/spawn.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, TOOL_SEARCH } from './harness/mcp.ts';
import { startPiInTmux, type TmuxPi } from './harness/tmux.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World;
let tui: TmuxPi;

beforeAll(async () => {
  await ensurePi();
  const server = { command: process.execPath, args: fixtureArgs('hostile-server'), lifecycle: 'eager' };
  world = await createWorld({
    mcpJson: {
      mcpServers: {
        plain: { ...server, toolPrefix: 'none' },
        'hostile\u001b]0;owned\u0007': server,
      },
    },
    script: [
      { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:hostile_ask' } }] },
      { toolCalls: [{ id: 'call_ask', name: 'hostile_ask', arguments: {} }] },
      { text: 'all done' },
      { text: 'prompt answered' },
    ],
  });
  tui = await startPiInTmux({ dir: world.dir, extensions: [EXTENSION], columns: 120, rows: 45 });
}, ENSURE_PI_TIMEOUT_MS);

afterAll(async () => {
  await tui?.stop();
  await world?.cleanup();
});

describe('a hostile server in the real Pi TUI', () => {
  it('its dialogs, stderr and name are shown, and none of its escapes acts on the terminal', {
    timeout: 120_000,
  }, async () => {
    await tui.waitForScreen(/MCP 2\/2/, { timeoutMs: 60_000 });
    tui.type('Ask me');
    tui.press('Enter');
    // The link to open, intact; the first choice is "Done (I opened the link)".
    await tui.waitForScreen((s) => s.includes(LINK) && s.includes('Done (I opened the link)'), {
      timeoutMs: 60_000,
    });
    tui.press('Enter');
    await tui.waitForScreen(/asks: Pick one evil/);
    tui.press('Enter');
    await tui.waitForScreen(/Colour evil/);
    tui.press('Enter');
    await tui.waitForScreen(/all done/, { timeoutMs: 60_000 });
    // A server's prompt becomes the user's message, shown by Pi.
    tui.type('/mcp__plain__hostile_prompt cats');
    tui.press('Enter');
    await tui.waitForScreen(/prompt answered/, { timeoutMs: 60_000 });
    tui.type('/mcp plain');
    tui.press('Enter');
    await tui.waitForScreen(/hostile server starting/);
    tui.type('/mcp');
    tui.press('Enter');
    await tui.waitForScreen(/hostile {2}● connected/);
    tui.press('Escape');
    const { title, buffers } = tui.terminalState();
    expect(title).not.toMatch(/owned|pwned/);
    expect(buffers).not.toMatch(/Y3VybC|curl/);
  });
});
