// The /mcp panel as terminal lines for a given width and height. Pure: the host supplies the colours
// (Style) and the terminal-width arithmetic (TextKit: ANSI, wide characters), so every line fits.

import { formatElapsed } from '../../duration.ts';
import type { ServerState } from '../../ports/server-state.ts';
import { plainLine, plainText } from '../../terminal-text.ts';
import { countsText, STATE_NAME, sharedHostText } from '../server-status.ts';
import type { PanelView, RunningServer, ServerRow, SkippedServerRow, ToolRow } from './view.ts';

export interface TextKit {
  /** Columns the text takes on screen (ANSI escapes ignored). */
  width(text: string): number;
  /** Cut to at most `width` columns, with an ellipsis when cut. */
  truncate(text: string, width: number): string;
  /** Word-wrap to lines of at most `width` columns. */
  wrap(text: string, width: number): string[];
}

type Paint = (text: string) => string;

export interface Style {
  accent: Paint;
  muted: Paint;
  dim: Paint;
  success: Paint;
  warning: Paint;
  error: Paint;
  bold: Paint;
}

export interface RenderContext {
  width: number;
  /** Most lines the panel may take. */
  height: number;
  now: number;
  style: Style;
  text: TextKit;
}

const SERVER_HINTS = [
  '↑↓ select',
  'enter tools',
  'r reconnect',
  'a sign in',
  'e enable/disable',
  'esc close',
];
/** On a project's server: its consent can be taken back. */
const PROJECT_SERVER_HINTS = [...SERVER_HINTS.slice(0, -1), 'f forget consent', 'esc close'];
const TOOL_HINTS = ['↑↓ select', 'd direct for this session', 'esc back'];
/** Lines of a selected tool's description shown at most. */
const DESCRIPTION_LINES = 6;
const INDENT = '    ';

function stateLabel(row: RunningServer): string {
  if (row.tags.has('needsSignIn')) return 'needs sign-in';
  // In backoff, or resting after a failed attempt (the next call retries).
  if (row.health === 'failing') return 'failed';
  if (row.tags.has('starting')) return 'connecting';
  if (row.tags.has('closing')) return 'closing';
  if (row.tags.has('usable')) return 'connected';
  if (row.warm) return row.warm;
  // Resting: no tag tells a server never started from an idle one, and the panel words them apart.
  return row.state === 'init' ? 'not started' : 'idle';
}

function glyph(row: RunningServer, style: Style): string {
  switch (row.health) {
    case 'needs-auth':
      return style.warning('!');
    case 'failing':
      return style.error('✗');
    case 'connecting':
      return style.accent('◌');
    default:
      return row.tags.has('usable') ? style.success('●') : style.dim('○');
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `1,234` → `1.2k`: the figure is an estimate, keep it short. */
function tokenFigure(n: number): string {
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
}

/** The newest states that fit, oldest first; older ones collapse into a leading `…`. */
export function trailText(trail: ServerState[], width: number, text: TextKit): string {
  const names = trail.map((s) => STATE_NAME[s]);
  for (let start = 0; start < names.length; start++) {
    const line = (start > 0 ? ['…', ...names.slice(start)] : names).join(' → ');
    if (text.width(line) <= width) return line;
  }
  return text.truncate(names.at(-1) ?? '', width);
}

function fitWidth(line: string, ctx: RenderContext): string {
  return ctx.text.width(line) <= ctx.width ? line : ctx.text.truncate(line, ctx.width);
}

/**
 * `lead` then the parts joined by ` · `; a part that does not fit any more starts an indented line,
 * so narrow terminals lose no fact (a single part too long for a line is cut).
 */
function flow(lead: string, parts: string[], ctx: RenderContext, indent = INDENT): string[] {
  const lines: string[] = [];
  let line = lead;
  let empty = true;
  for (const part of parts) {
    const next = empty ? `${line}${part}` : `${line} · ${part}`;
    if (empty || ctx.text.width(next) <= ctx.width) line = next;
    else {
      lines.push(line);
      line = `${indent}${part}`;
    }
    empty = false;
  }
  lines.push(line);
  return lines;
}

function wrapIndented(body: string, ctx: RenderContext, max: number, paint: Paint): string[] {
  const room = Math.max(10, ctx.width - INDENT.length);
  const lines = ctx.text.wrap(body, room);
  const shown = lines.slice(0, max);
  if (lines.length > max) shown[max - 1] = ctx.text.truncate(`${shown[max - 1]} …`, room);
  return shown.map((l) => `${INDENT}${paint(l)}`);
}

function runningBlock(row: RunningServer, selected: boolean, ctx: RenderContext): string[] {
  const { style, now } = ctx;
  const head = [`${glyph(row, style)} ${stateLabel(row)}`];
  if (row.since !== undefined && row.state !== 'init' && !row.warm) {
    head[0] += ` ${style.dim(`for ${formatElapsed(now - row.since)}`)}`;
  }
  if (row.sharedHost) head.push(style.muted(sharedHostText(row.sharedHost, row.state)));
  if (row.tags.has('failed') && row.nextRetryAt !== undefined) {
    head.push(`retry in ${formatElapsed(row.nextRetryAt - now)} (attempt ${row.attempt})`);
  }
  if (row.tags.has('resting') && row.health === 'failing') head.push('the next call retries');
  if (row.inFlight > 0) head.push(style.accent(`${plural(row.inFlight, 'call')} in flight`));
  if (row.health === 'needs-auth') head.push(style.warning('press a to sign in'));
  const facts: string[] = [row.lifecycle, row.transport];
  if (row.tools === undefined) facts.push('tools not listed yet');
  else {
    facts.push(countsText(row.tools));
    if (row.tools.tools + row.tools.resources > 0)
      facts.push(`≈${tokenFigure(row.directTokens)} tokens if direct`);
  }
  const lines = [
    ...flow(`${selected ? style.accent('›') : ' '} ${style.bold(plainLine(row.name))}  `, head, ctx),
    ...flow(INDENT, facts.map(style.muted), ctx),
  ];
  if (row.trail.length > 0) {
    lines.push(`${INDENT}${style.dim(trailText(row.trail, ctx.width - INDENT.length, ctx.text))}`);
  }
  if (row.lastError) {
    const error = `last error ${formatElapsed(now - row.lastError.at)} ago: ${row.lastError.message}`;
    lines.push(...wrapIndented(error, ctx, selected ? 3 : 1, style.error));
    if (selected && row.stderr.length > 0) {
      lines.push(`${INDENT}${style.muted('stderr:')}`);
      // The newest line (most often the cause) wraps onto up to 3 lines; older ones are cut to width.
      const room = Math.max(10, ctx.width - INDENT.length - 2);
      for (const [i, l] of row.stderr.entries()) {
        const parts = i === row.stderr.length - 1 ? ctx.text.wrap(l, room).slice(0, 3) : [l];
        for (const [j, part] of parts.entries())
          lines.push(`${INDENT}${style.dim(`${j === 0 ? '│' : ' '} ${part}`)}`);
      }
    }
  }
  return lines;
}

function skippedBlock(row: SkippedServerRow, selected: boolean, ctx: RenderContext): string[] {
  const { style } = ctx;
  const lines = [
    `${selected ? style.accent('›') : ' '} ${style.bold(plainLine(row.name))}  ${style.dim(row.waitingConsent ? '? waiting for your consent · e allows it' : `– skipped: ${row.reason}`)}`,
  ];
  if (selected && row.fix && !row.waitingConsent) lines.push(...wrapIndented(row.fix, ctx, 2, style.muted));
  return lines;
}

function serverBlock(row: ServerRow, selected: boolean, ctx: RenderContext): string[] {
  if (row.kind === 'running') return runningBlock(row, selected, ctx);
  if (row.kind === 'skipped') return skippedBlock(row, selected, ctx);
  const { style } = ctx;
  return [
    `${selected ? style.accent('›') : ' '} ${style.bold(plainLine(row.name))}  ${style.dim('○ disabled for this session · e enables it')}`,
  ];
}

/** What a list screen shows: its lines, and the first block shown (kept for the next draw). */
export interface Drawn {
  lines: string[];
  scroll: number;
}

/**
 * The blocks that fit in `room` lines, always including the selected one. The list scrolls only as
 * far as the selection needs, from where it was (`scroll`); `↑ n more` / `↓ n more` say what is left
 * out.
 */
function windowed(blocks: string[][], selected: number, scroll: number, room: number, style: Style): Drawn {
  const total = blocks.reduce((n, b) => n + b.length, 0);
  if (total <= room) return { lines: blocks.flat(), scroll: 0 };
  const budget = Math.max(1, room - 2);
  const span = (from: number, to: number) => blocks.slice(from, to + 1).reduce((n, b) => n + b.length, 0);
  let first = Math.min(Math.max(0, scroll), selected);
  while (first < selected && span(first, selected) > budget) first++;
  let last = first;
  while (last + 1 < blocks.length && span(first, last + 1) <= budget) last++;
  // At the end of the list, use the room above rather than leave it empty.
  while (last === blocks.length - 1 && first > 0 && span(first - 1, last) <= budget) first--;
  const lines: string[] = [];
  if (first > 0) lines.push(style.dim(`  ↑ ${first} more`));
  lines.push(
    ...blocks
      .slice(first, last + 1)
      .flat()
      .slice(0, budget),
  );
  if (last < blocks.length - 1) lines.push(style.dim(`  ↓ ${blocks.length - 1 - last} more`));
  return { lines, scroll: first };
}

function frame(head: string[], body: (room: number) => Drawn, foot: string[], ctx: RenderContext): Drawn {
  const rule = ctx.style.dim('─'.repeat(Math.max(1, ctx.width)));
  const top = [rule, ...head];
  const bottom = [rule, ...foot];
  const room = Math.max(3, ctx.height - top.length - bottom.length);
  const { lines, scroll } = body(room);
  return { lines: [...top, ...lines, ...bottom].map((line) => fitWidth(line, ctx)), scroll };
}

function footer(message: string | undefined, hints: string[], ctx: RenderContext): string[] {
  const lines = message ? ctx.text.wrap(plainText(message), ctx.width).map(ctx.style.accent) : [];
  return [...lines, ...flow('', hints, ctx, '').map(ctx.style.dim)];
}

/** Where a list screen stands: the selected row, the first one shown, the last action's message. */
export interface ListPosition {
  selected: number;
  scroll: number;
  message?: string | undefined;
}

export function renderServers(view: PanelView, at: ListPosition, ctx: RenderContext): Drawn {
  const { selected, scroll, message } = at;
  const { style } = ctx;
  const head = [style.accent(style.bold(view.summary))];
  if (view.problems > 0) {
    head.push(style.warning(`${plural(view.problems, 'config problem')}: /mcp status lists them`));
  }
  const body = (room: number) => {
    if (!view.running) return { lines: [style.muted('Pi has not started the MCP session yet.')], scroll: 0 };
    if (view.servers.length === 0) {
      if (view.unreadable)
        return { lines: ctx.text.wrap(view.unreadable, ctx.width).map(style.error), scroll: 0 };
      const text = 'No MCP servers configured. Add them to ~/.pi/agent/mcp.json or .pi/mcp.json.';
      return { lines: ctx.text.wrap(text, ctx.width).map(style.muted), scroll: 0 };
    }
    const blocks = view.servers.map((row, i) => serverBlock(row, i === selected, ctx));
    return windowed(blocks, selected, scroll, room, style);
  };
  const row = view.servers[selected];
  const hints = row?.kind === 'running' && row.fromProject ? PROJECT_SERVER_HINTS : SERVER_HINTS;
  return frame(head, body, footer(message, hints, ctx), ctx);
}

const EXPOSURE_LABEL: Record<ToolRow['exposure'], string> = {
  direct: 'direct',
  session: 'direct (this session)',
  loaded: 'loaded by ToolSearch',
  deferred: 'deferred',
};

function rowCounts(rows: ToolRow[]) {
  const resources = rows.filter((r) => r.resource).length;
  return { tools: rows.length - resources, resources };
}

export function renderTools(server: string, tools: ToolRow[], at: ListPosition, ctx: RenderContext): Drawn {
  const { selected, scroll, message } = at;
  const { style } = ctx;
  const total = tools.reduce((n, t) => n + t.tokens, 0);
  const head = [
    style.accent(
      style.bold(
        `${plainLine(server)} · ${countsText(rowCounts(tools))} · ≈${tokenFigure(total)} tokens if all direct`,
      ),
    ),
  ];
  const body = (room: number) => {
    if (tools.length === 0) {
      const text = 'No tools known yet: the server has not been listed (r in the list reconnects it).';
      return { lines: [style.muted(text)], scroll: 0 };
    }
    const blocks = tools.map((tool, i) => {
      const exposure = EXPOSURE_LABEL[tool.exposure];
      const mark = tool.exposure === 'deferred' ? style.dim(exposure) : style.success(exposure);
      const first = `${i === selected ? style.accent('›') : ' '} ${style.bold(tool.name)}  ${mark} ${style.dim(`≈${tokenFigure(tool.tokens)} tokens`)}`;
      const description = tool.description.trim() || '(no description)';
      return [first, ...wrapIndented(description, ctx, i === selected ? DESCRIPTION_LINES : 1, style.muted)];
    });
    return windowed(blocks, selected, scroll, room, style);
  };
  return frame(head, body, footer(message, TOOL_HINTS, ctx), ctx);
}
