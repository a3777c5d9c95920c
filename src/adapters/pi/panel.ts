// The /mcp panel in Pi's terminal UI: a component shown with `ctx.ui.custom()` that draws the
// host-agnostic panel controller with Pi's theme and terminal-width helpers and maps Pi's keys to the
// panel's. Pi provides `@earendil-works/pi-tui` to extensions at run time (it is not our dependency):
// it is loaded here, on first use, and typed by the narrow interfaces below.

import type { Runtime } from '../../actors/session-actor.ts';
import {
  createPanelController,
  type PanelKey,
  type PanelOutcome,
} from '../../commands/mcp-panel/controller.ts';
import type { Style, TextKit } from '../../commands/mcp-panel/render.ts';

/** The part of `@earendil-works/pi-tui` the panel uses. */
export interface PiTuiKit {
  visibleWidth(text: string): number;
  truncateToWidth(text: string, maxWidth: number, ellipsis?: string): string;
  wrapTextWithAnsi(text: string, width: number): string[];
  matchesKey(data: string, key: string): boolean;
}

export interface PiTheme {
  fg(color: string, text: string): string;
  bold(text: string): string;
}

export interface PiKeybindings {
  matches(data: string, action: string): boolean;
}

export interface PiTui {
  requestRender(): void;
  terminal?: { rows?: number };
}

export interface PiComponent {
  render(width: number): string[];
  handleInput(data: string): void;
  invalidate(): void;
  dispose?(): void;
}

export type PiCustomFactory<T> = (
  tui: PiTui,
  theme: PiTheme,
  keybindings: PiKeybindings,
  done: (result: T) => void,
) => PiComponent;

export interface PiCustomUi {
  custom<T>(factory: PiCustomFactory<T>): Promise<T | undefined>;
}

const PI_TUI = '@earendil-works/pi-tui';
/** Lines Pi keeps for itself below the panel (footer) and above it (the last chat lines). */
const RESERVED_ROWS = 6;
const MIN_HEIGHT = 12;
/** Durations on screen move on once a second; a redraw happens only when a line changed. */
const TICK_MS = 1_000;

/** Pi's application keys (configurable) first, then the panel's letters. */
const APP_KEYS: Array<[string, PanelKey]> = [
  ['tui.select.up', 'up'],
  ['tui.select.down', 'down'],
  ['tui.select.confirm', 'enter'],
  ['tui.select.cancel', 'back'],
];
const LETTER_KEYS: Array<[string, PanelKey]> = [
  ['k', 'up'],
  ['j', 'down'],
  ['q', 'back'],
  ['r', 'reconnect'],
  ['a', 'signIn'],
  ['e', 'toggleEnabled'],
  ['t', 'tools'],
  ['d', 'toggleDirect'],
  ['y', 'yes'],
  ['n', 'no'],
  ['ctrl+d', 'close'],
  ['f', 'forget'],
];
/** One printable character or a paste: text, no control character or escape sequence. */
const isText = (data: string) => data !== '' && [...data].every((ch) => ch >= ' ' && ch !== '\x7f');

export function panelKey(data: string, keybindings: PiKeybindings, kit: PiTuiKit): PanelKey | undefined {
  for (const [action, key] of APP_KEYS) if (keybindings.matches(data, action)) return key;
  // Before the letters: pi-tui may read an upper-case D as d.
  if (data === 'D' || kit.matchesKey(data, 'shift+d')) return 'disableInConfig';
  for (const [letter, key] of LETTER_KEYS) if (kit.matchesKey(data, letter)) return key;
  return isText(data) ? 'typed' : undefined;
}

function styleOf(theme: PiTheme): Style {
  return {
    accent: (t) => theme.fg('accent', t),
    muted: (t) => theme.fg('muted', t),
    dim: (t) => theme.fg('dim', t),
    success: (t) => theme.fg('success', t),
    warning: (t) => theme.fg('warning', t),
    error: (t) => theme.fg('error', t),
    bold: (t) => theme.bold(t),
  };
}

function textOf(kit: PiTuiKit): TextKit {
  return {
    width: (t) => kit.visibleWidth(t),
    truncate: (t, w) => kit.truncateToWidth(t, w, '…'),
    wrap: (t, w) => kit.wrapTextWithAnsi(t, w),
  };
}

/** The panel as a Pi component; `done` ends `ctx.ui.custom()` with the outcome. */
export function mcpPanelComponent(
  runtime: Runtime,
  kit: PiTuiKit,
  tui: PiTui,
  theme: PiTheme,
  keybindings: PiKeybindings,
  done: (outcome: PanelOutcome) => void,
): PiComponent {
  const text = textOf(kit);
  let style = styleOf(theme);
  let ticker: ReturnType<typeof setInterval> | undefined;
  const controller = createPanelController(runtime, {
    onChange: () => tui.requestRender(),
    onClose: (outcome) => {
      clearInterval(ticker);
      done(outcome);
    },
  });
  ticker = setInterval(() => controller.tick(), TICK_MS);
  ticker.unref?.();
  return {
    render(width) {
      const rows = tui.terminal?.rows ?? 24;
      return controller.lines({ width, height: Math.max(MIN_HEIGHT, rows - RESERVED_ROWS), style, text });
    },
    handleInput(data) {
      const key = panelKey(data, keybindings, kit);
      if (key) controller.key(key);
    },
    invalidate() {
      // The theme may have changed: colours are rebuilt on the next render.
      style = styleOf(theme);
    },
    dispose() {
      clearInterval(ticker);
      controller.dispose();
    },
  };
}

/**
 * Shows the panel until the user closes it. Undefined when this Pi cannot show it (no `custom()`, or
 * one that returns at once without a component, as in RPC mode): the caller prints the text instead.
 */
export async function showMcpPanel(
  ui: PiCustomUi,
  runtime: Runtime,
  loadKit: () => Promise<PiTuiKit> = () => import(PI_TUI),
): Promise<PanelOutcome | undefined> {
  const kit = await loadKit();
  let shown = false;
  const outcome = await ui.custom<PanelOutcome>((tui, theme, keybindings, done) => {
    shown = true;
    return mcpPanelComponent(runtime, kit, tui, theme, keybindings, done);
  });
  return shown ? (outcome ?? { kind: 'closed' }) : undefined;
}
