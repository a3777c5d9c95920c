// Writes docs/statecharts/<machine id>.mmd (Mermaid stateDiagram-v2) for every state machine exported
// by src/machines/*.machine.ts, and <machine id>.svg drawn from it (scripts/statechart-svg.ts) for the
// inspector page. A new machine file needs no change here.
//
//   npx tsx scripts/statecharts.ts           regenerate (needs chromium when a drawing is stale)
//   npx tsx scripts/statecharts.ts --check   exit 1 and print `stale: <file>` for each file that differs
//
// Edge labels: the event, `onDone(<invoke id>)` / `onError(<invoke id>)`, `after <delay name>`, `always`,
// then `[guard]` and `/ actions`. Notes list a state's description, its tags, what it invokes, its
// entry/exit actions, and the transitions that do not leave it (targetless, or into its own children).

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type AnyStateMachine, type AnyStateNode, StateMachine } from 'xstate';
import { mermaidSourceHash, renderSvgs, svgSourceHash } from './statechart-svg.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MACHINES_DIR = join(ROOT, 'src', 'machines');
const OUT_DIR = join(ROOT, 'docs', 'statecharts');

type Transition = {
  eventType: string;
  target?: readonly AnyStateNode[] | undefined;
  guard?: unknown;
  actions: readonly unknown[];
  delay?: unknown;
  reenter?: boolean;
  source?: AnyStateNode;
};

function mermaidId(node: AnyStateNode): string {
  return node.path.length === 0 ? 'root' : node.path.join('_');
}

/** Keeps text inside Mermaid's label grammar. */
function clean(text: string): string {
  return text
    .replace(/[;#{}:]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function nameOf(thing: unknown): string {
  if (typeof thing === 'string') return thing;
  if (thing && typeof thing === 'object' && 'type' in thing && typeof thing.type === 'string')
    return thing.type;
  if (typeof thing === 'function') {
    const type = (thing as { type?: unknown }).type;
    if (typeof type === 'string') return type.replace(/^xstate\./, '');
    return thing.name || 'inline';
  }
  return 'inline';
}

/** `xstate.raise` / `xstate.cancel` in entry/exit are how XState arms `after` timers: not ours. */
function actionNames(actions: readonly unknown[]): string[] {
  return actions
    .filter(
      (a) =>
        !(typeof a === 'function' && /^xstate\.(raise|cancel)$/.test(String((a as { type?: unknown }).type))),
    )
    .map(nameOf);
}

function eventLabel(t: Transition): string {
  const type = t.eventType;
  if (type === '') return 'always';
  if (type.startsWith('xstate.done.actor.')) return `onDone(${type.slice('xstate.done.actor.'.length)})`;
  if (type.startsWith('xstate.error.actor.')) return `onError(${type.slice('xstate.error.actor.'.length)})`;
  if (type.startsWith('xstate.done.state.')) return 'onDone';
  if (type.startsWith('xstate.after.')) {
    return typeof t.delay === 'number'
      ? `after ${t.delay} ms`
      : `after ${typeof t.delay === 'string' ? t.delay : 'delay'}`;
  }
  return type;
}

function transitionLabel(t: Transition, target?: AnyStateNode): string {
  let label = eventLabel(t);
  if (t.guard !== undefined) label += ` [${nameOf(t.guard)}]`;
  if (target) label += ` → ${target.key}`;
  if (t.reenter && t.target?.some((n) => n === t.source)) label += ' (restart)';
  const actions = actionNames(t.actions);
  if (actions.length > 0) label += ` / ${actions.join(', ')}`;
  return clean(label);
}

function transitionsOf(node: AnyStateNode): Transition[] {
  const all: Transition[] = [];
  for (const list of node.transitions.values()) all.push(...(list as unknown as Transition[]));
  for (const t of node.always ?? []) all.push({ ...(t as unknown as Transition), eventType: '' });
  return all;
}

function isAncestor(ancestor: AnyStateNode, node: AnyStateNode): boolean {
  for (let n = node.parent; n; n = n.parent) if (n === ancestor) return true;
  return false;
}

/** The block an edge is drawn in: the innermost state containing both ends (neither end itself). */
function edgeScope(a: AnyStateNode, b: AnyStateNode): AnyStateNode {
  for (let n: AnyStateNode | undefined = a.parent; n; n = n.parent) {
    if (n !== b && isAncestor(n, b)) return n;
  }
  return a.machine.root;
}

interface Collected {
  /** Edges drawn inside the block of their source and target's common ancestor. */
  edges: Map<AnyStateNode, string[]>;
  /** Note lines per state. */
  notes: Map<AnyStateNode, string[]>;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function collect(node: AnyStateNode, out: Collected): void {
  if (node.description) push(out.notes, node, clean(node.description));
  // Tags are what code outside the machines reads (snapshot.hasTag), so the chart shows them.
  if (node.tags.length > 0) push(out.notes, node, clean(`tags ${node.tags.join(', ')}`));
  for (const invoke of node.invoke) {
    const src = typeof invoke.src === 'string' ? invoke.src : invoke.id;
    push(out.notes, node, clean(src === invoke.id ? `invoke ${src}` : `invoke ${src} as ${invoke.id}`));
  }
  const entry = actionNames(node.entry);
  if (entry.length > 0) push(out.notes, node, clean(`entry / ${entry.join(', ')}`));
  const exit = actionNames(node.exit);
  if (exit.length > 0) push(out.notes, node, clean(`exit / ${exit.join(', ')}`));

  for (const t of transitionsOf(node)) {
    const targets = t.target ?? [];
    if (targets.length === 0) {
      push(out.notes, node, transitionLabel(t));
      continue;
    }
    for (const target of targets) {
      if (isAncestor(node, target)) {
        push(out.notes, node, transitionLabel(t, target));
        continue;
      }
      const line = `${mermaidId(node)} --> ${mermaidId(target)} : ${transitionLabel(t)}`;
      push(out.edges, edgeScope(node, target), line);
    }
  }
  for (const child of Object.values(node.states) as AnyStateNode[]) collect(child, out);
}

function noteLines(id: string, lines: string[] | undefined, indent: string): string[] {
  if (!lines || lines.length === 0) return [];
  return [`${indent}note right of ${id}`, ...lines.map((l) => `${indent}  ${l}`), `${indent}end note`];
}

function renderBlock(node: AnyStateNode, out: Collected, indent: string): string[] {
  const lines: string[] = [];
  const children = Object.values(node.states) as AnyStateNode[];
  if (node.type === 'compound') {
    for (const target of node.initial.target) lines.push(`${indent}[*] --> ${mermaidId(target)}`);
  }
  children.forEach((child, index) => {
    if (node.type === 'parallel' && index > 0) lines.push(`${indent}--`);
    const id = mermaidId(child);
    const label = child.type === 'history' ? `${child.key} (history)` : child.key;
    if (child.type === 'compound' || child.type === 'parallel') {
      lines.push(`${indent}state "${label}" as ${id} {`);
      lines.push(...renderBlock(child, out, `${indent}  `));
      lines.push(`${indent}}`);
    } else {
      lines.push(`${indent}state "${label}" as ${id}`);
      if (child.type === 'final') lines.push(`${indent}${id} --> [*]`);
    }
    lines.push(...noteLines(id, out.notes.get(child), indent));
  });
  lines.push(...(out.edges.get(node) ?? []).map((e) => `${indent}${e}`));
  return lines;
}

export function toMermaid(machine: AnyStateMachine, sourceFile: string): string {
  const out: Collected = { edges: new Map(), notes: new Map() };
  collect(machine.root, out);
  const lines = [
    `%% Generated from ${sourceFile} by scripts/statecharts.ts. Do not edit: run \`npx tsx scripts/statecharts.ts\`.`,
    'stateDiagram-v2',
    ...renderBlock(machine.root, out, '  '),
  ];
  const rootNotes = out.notes.get(machine.root);
  if (rootNotes) {
    lines.push('  state "(any state)" as any_state', ...noteLines('any_state', rootNotes, '  '));
  }
  return `${lines.join('\n')}\n`;
}

export interface Chart {
  file: string;
  text: string;
}

/** Every machine exported by src/machines/*.machine.ts, charted. */
export async function generateCharts(): Promise<Chart[]> {
  const charts: Chart[] = [];
  const seen = new Map<string, string>();
  const files = readdirSync(MACHINES_DIR)
    .filter((f) => f.endsWith('.machine.ts'))
    .sort();
  for (const file of files) {
    const path = join(MACHINES_DIR, file);
    const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    const machines = new Set(
      Object.values(module).filter((v): v is AnyStateMachine => v instanceof StateMachine),
    );
    for (const machine of machines) {
      const source = relative(ROOT, path);
      const previous = seen.get(machine.id);
      if (previous) throw new Error(`machine id "${machine.id}" is used by both ${previous} and ${source}`);
      seen.set(machine.id, source);
      charts.push({ file: join(OUT_DIR, `${machine.id}.mmd`), text: toMermaid(machine, source) });
    }
  }
  return charts;
}

const svgFileOf = (mmdFile: string) => mmdFile.replace(/\.mmd$/, '.svg');

/** True when the SVG beside a chart was drawn from exactly this chart text. */
function svgIsCurrent(chart: Chart): boolean {
  const file = svgFileOf(chart.file);
  return existsSync(file) && svgSourceHash(readFileSync(file, 'utf8')) === mermaidSourceHash(chart.text);
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const charts = await generateCharts();
  if (!check) {
    mkdirSync(OUT_DIR, { recursive: true });
    for (const chart of charts) writeFileSync(chart.file, chart.text);
    const toDraw = charts.filter((chart) => !svgIsCurrent(chart));
    const svgs = await renderSvgs(toDraw.map((chart) => chart.text));
    for (const [i, chart] of toDraw.entries()) writeFileSync(svgFileOf(chart.file), svgs[i] as string);
    const written = [...charts.map((c) => c.file), ...toDraw.map((c) => svgFileOf(c.file))];
    console.log(`wrote ${written.map((file) => relative(ROOT, file)).join(', ')}`);
    return;
  }
  const expected = new Set(charts.flatMap((c) => [c.file, svgFileOf(c.file)]));
  let stale = 0;
  for (const chart of charts) {
    if (!existsSync(chart.file) || readFileSync(chart.file, 'utf8') !== chart.text) {
      console.error(`stale: ${relative(ROOT, chart.file)}`);
      stale++;
    }
    if (!svgIsCurrent(chart)) {
      console.error(`stale: ${relative(ROOT, svgFileOf(chart.file))} (not drawn from the current chart)`);
      stale++;
    }
  }
  // A chart whose machine is gone is stale too.
  for (const file of existsSync(OUT_DIR) ? readdirSync(OUT_DIR) : []) {
    const path = join(OUT_DIR, file);
    if ((file.endsWith('.mmd') || file.endsWith('.svg')) && !expected.has(path)) {
      console.error(`stale: ${relative(ROOT, path)} (no machine generates it)`);
      stale++;
    }
  }
  if (stale > 0) {
    console.error('Run `npm run statecharts` and commit the result.');
    process.exitCode = 1;
  } else {
    console.log(`statecharts up to date (${charts.length} charts, ${charts.length} drawings)`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
