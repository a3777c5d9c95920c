// The bar "no mutable module-level state in src/ outside a documented list of caches": every piece of
// module-level state the scanner finds in src/ must be listed in docs/module-state.md (with why it is
// safe to exist twice, once per bundle), and every listed one must still exist. A module's state is
// what lives as long as the module: a top-level `let`/`var`, a top-level Map/Set/WeakMap/WeakSet, array
// or object literal that the module changes, and a top-level instance (`new X(…)`, `createX(…)`).

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'module-state.md');

/** Constructors whose instances hold nothing that changes (a global RegExp's lastIndex is not used across calls). */
const STATELESS_CLASSES = new Set(['RegExp', 'TextEncoder', 'TextDecoder', 'URL', 'Error']);
/** Factories whose result holds nothing of its own. */
const STATELESS_FACTORIES = new Set(['createRequire']);
const COLLECTIONS = 'Map|Set|WeakMap|WeakSet|Array';
const MUTATORS = 'set|add|delete|clear|push|pop|shift|unshift|splice|sort|reverse|fill|copyWithin';

/** `name` for each piece of module-level state in a module's source. */
function moduleState(source: string): string[] {
  const found: string[] = [];
  const lines = source.split('\n');
  // A declaration whose value the formatter moved to the next line is read as one line.
  const topLevel = lines
    .map((line, i) => (/=\s*$/.test(line) ? `${line} ${lines[i + 1]?.trim() ?? ''}` : line))
    .filter((line) => /^(export )?(let|var|const) /.test(line));
  for (const line of topLevel) {
    const variable = line.match(/^(?:export )?(let|var) ([A-Za-z_$][\w$]*)/);
    if (variable) {
      found.push(variable[2]!);
      continue;
    }
    const constant = line.match(/^(?:export )?const ([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(.*)$/);
    if (!constant) continue;
    const [, name, value] = constant as unknown as [string, string, string];
    const created = value.match(/^new ([A-Za-z_$][\w$.]*)/)?.[1];
    if (created && !new RegExp(`^(${COLLECTIONS})$`).test(created)) {
      if (!STATELESS_CLASSES.has(created)) found.push(name);
      continue;
    }
    const factory = value.match(/^(create[A-Z]\w*)\(/)?.[1];
    if (factory) {
      if (!STATELESS_FACTORIES.has(factory)) found.push(name);
      continue;
    }
    const container = created !== undefined || /^[[{]/.test(value);
    if (container && changes(source, name)) found.push(name);
  }
  return found;
}

/** Whether the source calls a mutating method on `name`, assigns into it, or deletes from it. */
function changes(source: string, name: string): boolean {
  const at = `(?<![\\w$.])${name.replace(/\$/g, '\\$')}`;
  return (
    new RegExp(`${at}\\.(${MUTATORS})\\(`).test(source) ||
    new RegExp(`${at}(\\[[^\\]\\n]*\\]|\\.[A-Za-z_$][\\w$]*)\\s*([-+*/|&?]{0,2})=(?!=)`).test(source) ||
    new RegExp(`${at}(\\[[^\\]\\n]*\\]|\\.[A-Za-z_$][\\w$]*)\\s*(\\+\\+|--)`).test(source) ||
    new RegExp(`delete ${at}[[.]`).test(source) ||
    new RegExp(`Object\\.assign\\(${at}\\b`).test(source)
  );
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `file name` pairs from the tables of docs/module-state.md: rows of `| \`file\` | \`name\` | why |`. */
function documented(): string[] {
  const rows = readFileSync(DOC, 'utf8').matchAll(/^\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|/gm);
  return [...rows].map(([, file, name]) => `${file} ${name}`);
}

describe('module-level state in src/', () => {
  const found = sources(join(ROOT, 'src')).flatMap((file) =>
    moduleState(readFileSync(file, 'utf8')).map((name) => `${relative(ROOT, file)} ${name}`),
  );

  it('is only what docs/module-state.md lists', () => {
    const allowed = new Set(documented());
    expect(found.filter((entry) => !allowed.has(entry))).toEqual([]);
  });

  it('docs/module-state.md lists nothing that is gone', () => {
    const present = new Set(found);
    expect(documented().filter((entry) => !present.has(entry))).toEqual([]);
  });

  it('the scanner finds each kind of module state, and not constants', () => {
    const source = [
      'let current: string | undefined;',
      'export var old = 1;',
      'const seen = new Set<string>();',
      'const byName = new Map<string, number>();',
      'const list: string[] = [];',
      'const table: Record<string, number> = {};',
      'export const counts = { calls: 0 };',
      'const store = createStore();',
      'const wrapped: Map<string, Map<string, number>> =',
      '  new Map();',
      'const client = new Client();',
      'const WORDS = new Set(["a", "b"]);',
      'const LIMITS = { max: 1 };',
      'const SHAPE = new RegExp("x", "g");',
      'const MODES = ["a"] as const;',
      'export function use(name: string) {',
      '  seen.add(name);',
      '  byName.set(name, 1);',
      '  list.push(name);',
      '  table[name] = 1;',
      '  counts.calls++;',
      '  wrapped.clear();',
      '  return WORDS.has(name) && LIMITS.max > 0 && MODES.includes(name);',
      '}',
    ].join('\n');
    expect(moduleState(source)).toEqual([
      'current',
      'old',
      'seen',
      'byName',
      'list',
      'table',
      'counts',
      'store',
      'wrapped',
      'client',
    ]);
  });
});
