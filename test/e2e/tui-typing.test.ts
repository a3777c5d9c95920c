// Pi's terminal UI typed into as a person does, one key at a time (tmux send-keys per character):
// `/mcp prompts` and `/mcp status` run on one Enter and leave the editor empty for the next line;
// in the /mcp panel typed text presses none of its letter keys, and Ctrl+D closes it.
import { resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { messageText } from './harness/fake-llm.ts';
import { EXTENSION, killMarked, stdioEntry, uniqueMarker } from './harness/mcp.ts';
import { panelOf, startPiInTmux, type TmuxPi } from './harness/tmux.ts';
import { createWorld, type World } from './harness/world.ts';

const EVERYTHING_ENTRY = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const PROMPT = '/mcp__everything__completable-prompt';

let world: World | undefined;
let pi: TmuxPi | undefined;
const marker = uniqueMarker('typing');

beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await pi?.stop();
  pi = undefined;
  await world?.cleanup();
  world = undefined;
  killMarked(marker);
});

const RULE = /^─+$/;

/** What the editor holds: the lines between the last two rules of the screen, trimmed. */
function editorText(screen: string): string {
  const lines = screen.split('\n');
  const rules = lines.flatMap((l, i) => (RULE.test(l) ? [i] : []));
  const [top, bottom] = rules.slice(-2);
  if (top === undefined || bottom === undefined) return '';
  return lines
    .slice(top + 1, bottom)
    .map((l) => l.trim())
    .join('\n')
    .trim();
}

/** Pi's completion list under the editor (its selected row starts with →). */
function completionShown(screen: string): boolean {
  const lines = screen.split('\n');
  const bottom = lines.findLastIndex((l) => RULE.test(l));
  return lines.slice(bottom + 1).some((l) => /^\s*→ /.test(l));
}

/** One key per send, as fingers do, each seen in the editor (after `already`) before the next. */
async function typeLikeAPerson(tui: TmuxPi, text: string, already = '') {
  let typed = already;
  for (const ch of text) {
    tui.type(ch);
    typed += ch;
    const sofar = typed.trimEnd(); // the screen shows no trailing space
    await tui.waitForScreen((s) => editorText(s) === sofar);
  }
}

/** Esc closes the completion list, then Ctrl+U empties the line (apart: Esc then a key reads as Alt+key). */
async function clearEditor(tui: TmuxPi) {
  tui.press('Escape');
  await tui.waitForScreen((s) => !completionShown(s));
  tui.press('C-u');
  await tui.waitForScreen((s) => editorText(s) === '');
}

/** Times `text` appears on the screen. */
const count = (screen: string, text: string) => screen.split(text).length - 1;

describe('typing into Pi with pi-mcp-actors', () => {
  it('one Enter runs /mcp prompts and /mcp status; the panel ignores typed text, Ctrl+D closes it', {
    timeout: 180_000,
  }, async () => {
    world = await createWorld({
      mcpJson: {
        settings: { sharedHost: false },
        mcpServers: { fx: stdioEntry(marker, [], { lifecycle: 'eager' }) },
      },
      script: [{ text: 'All done.' }],
    });
    pi = await startPiInTmux({ dir: world.dir, extensions: [EXTENSION], columns: 100, rows: 40 });
    const tui = pi;
    await tui.waitForScreen(/MCP 1\/1/, { timeoutMs: 60_000 });

    // A subcommand typed in full: Pi offers no completion equal to it, so one Enter runs it.
    await typeLikeAPerson(tui, '/mcp prompts');
    await tui.waitForScreen((s) => editorText(s) === '/mcp prompts' && !completionShown(s));
    tui.press('Enter');
    let screen = await tui.waitForScreen(/No MCP prompts known yet|No known prompts|Prompts/);
    expect(editorText(screen)).toBe('');
    await typeLikeAPerson(tui, '/mcp status');
    await tui.waitForScreen((s) => editorText(s) === '/mcp status' && !completionShown(s));
    tui.press('Enter');
    screen = await tui.waitForScreen(/fx: connected/);
    expect(screen).not.toContain('Unknown /mcp command');
    // Still offered while they add to what is typed.
    await typeLikeAPerson(tui, '/mcp pro');
    await tui.waitForScreen((s) => completionShown(s) && /→ prompts/.test(s));
    await clearEditor(tui);

    // The panel: "hello" typed into it is text, not h-e-l-l-o keys (e would disable fx).
    await typeLikeAPerson(tui, '/mcp');
    tui.press('Enter');
    await tui.waitForScreen((s) => /› fx {2}● connected/.test(panelOf(s)));
    for (const ch of 'hello') tui.type(ch);
    screen = await tui.waitForScreen((s) => panelOf(s).includes('Typing goes to the /mcp panel'));
    expect(panelOf(screen)).toMatch(/› fx {2}● connected/);
    expect(screen).not.toContain('disabled');
    // Ctrl+D closes it; Pi keeps running with an empty editor.
    tui.press('C-d');
    await tui.waitForScreen((s) => panelOf(s) === '' && !s.includes('esc close'));
    await typeLikeAPerson(tui, 'Hi');
    tui.press('Enter');
    screen = await tui.waitForScreen(/All done\./);
    expect(count(screen, 'Unknown /mcp command')).toBe(0);
  });

  it("offers a prompt's argument completions from the server while typing, and as choices in its dialog", {
    timeout: 180_000,
  }, async () => {
    world = await createWorld({
      // The server runs in the shared host (the default): completions go through it.
      mcpJson: {
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING_ENTRY], lifecycle: 'eager' },
        },
      },
      script: [{ text: 'Promoted.' }],
    });
    pi = await startPiInTmux({ dir: world.dir, extensions: [EXTENSION], columns: 110, rows: 40 });
    const tui = pi;
    await tui.waitForScreen(/MCP 1\/1/, { timeoutMs: 60_000 });

    // department=Eng: the server completes Engineering; Tab takes it.
    await typeLikeAPerson(tui, `${PROMPT} department=Eng`);
    await tui.waitForScreen((s) => completionShown(s) && /→ Engineering/.test(s));
    tui.press('Tab');
    await tui.waitForScreen((s) => editorText(s) === `${PROMPT} department=Engineering`);
    // The next argument's suggestions depend on the first (the server reads it from the context);
    // Pi asks again at each letter typed.
    await typeLikeAPerson(tui, ' name=A', `${PROMPT} department=Engineering`);
    let screen = await tui.waitForScreen((s) => completionShown(s) && /→ Alice/.test(s));
    expect(screen).not.toContain('David');
    await clearEditor(tui);

    // No arguments: the dialog for each offers the server's values to choose from.
    await typeLikeAPerson(tui, PROMPT);
    tui.press('Enter');
    screen = await tui.waitForScreen(/department[\s\S]*Engineering[\s\S]*Sales[\s\S]*Something else…/);
    tui.press('Down');
    tui.press('Enter'); // Sales
    screen = await tui.waitForScreen(/name[\s\S]*David[\s\S]*Eve[\s\S]*Frank/);
    tui.press('Enter'); // David
    await tui.waitForScreen(/Promoted\./, { timeoutMs: 60_000 });
    const user = world.llm.requests[0]!.body.messages.filter((m) => m.role === 'user').at(-1);
    expect(messageText(user?.content)).toBe('Please promote David to the head of the Sales team.');
  });
});
