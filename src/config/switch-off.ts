// Switches a server off for good from the /mcp panel: `"enabled": false` written into the user's own
// config file that defines it, with the rest of the file (comments, order, indentation) kept. Only the
// user's files: a project's file is the project's, and another client's file is that client's.

import { readFile, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { replaceAtomically } from '../fs/atomic-file.ts';
import { parsePath } from './json-path.ts';
import type { SourceRef } from './types.ts';

export type SwitchOff =
  | { kind: 'written'; file: string }
  /** Defined by the project's file: not ours to change. */
  | { kind: 'project'; file: string }
  /** Another client's file, a TOML file, or servers Pi itself handed over: not written. */
  | { kind: 'notOurs'; file: string; client?: string };

/** Whether the entry at `source` can be switched off in its file (the question before writing). */
export function switchOffTarget(source: SourceRef): SwitchOff {
  if (source.kind === 'project') return { kind: 'project', file: source.file };
  if (source.kind !== 'user' || !isAbsolute(source.file) || !/\.jsonc?$/i.test(source.file)) {
    return { kind: 'notOurs', file: source.file, client: source.importedFrom };
  }
  return { kind: 'written', file: source.file };
}

/** The file's indentation: its first indented line's, two spaces when none. */
function indentationOf(text: string): { insertSpaces: boolean; tabSize: number } {
  const first = /^([ \t]+)\S/m.exec(text)?.[1];
  if (first?.startsWith('\t')) return { insertSpaces: false, tabSize: 1 };
  return { insertSpaces: true, tabSize: first?.length ?? 2 };
}

/** Writes `"enabled": false` into the entry; throws with the reason when the file cannot be written. */
export async function switchOffInConfig(source: SourceRef): Promise<SwitchOff> {
  const target = switchOffTarget(source);
  if (target.kind !== 'written') return target;
  const path = parsePath(source.keyPath);
  if (!path || path.length === 0) throw new Error(`cannot find ${source.keyPath} in ${source.file}`);
  const text = await readFile(source.file, 'utf8');
  const { modify, applyEdits } = await import('jsonc-parser');
  const edits = modify(text, [...path, 'enabled'], false, {
    formattingOptions: { ...indentationOf(text), eol: text.includes('\r\n') ? '\r\n' : '\n' },
  });
  const { mode } = await stat(source.file);
  await replaceAtomically(source.file, applyEdits(text, edits), { mode: mode & 0o777 });
  return target;
}
