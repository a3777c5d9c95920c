// A config file that could not be read (not valid JSON/TOML, not readable, not an object) is not "no
// servers": every surface that would say "no servers configured" says this instead, with the file and
// the line, so the advice is to fix the file, not to add servers.

import { basename } from 'node:path';
import type { Diagnostic } from './types.ts';

const UNREADABLE = new Set(['invalid-json', 'invalid-toml', 'read-error', 'invalid-file']);

export function unreadableFiles(diagnostics: readonly Diagnostic[] | undefined): Diagnostic[] {
  return (diagnostics ?? []).filter((d) => d.level === 'error' && UNREADABLE.has(d.code) && d.file);
}

/** Whole sentences: which files could not be read, where, and that their servers are missing. */
export function unreadableText(diagnostics: readonly Diagnostic[] | undefined): string | undefined {
  const files = unreadableFiles(diagnostics);
  if (files.length === 0) return undefined;
  const lines = files.map((d) => `${d.message}${d.fix ? ` ${d.fix}` : ''}`);
  return `The MCP config could not be read, so its servers are missing: ${lines.join(' ')}`;
}

/** A few words for a status line: `mcp.json unreadable (line 3)`. */
export function unreadableShort(diagnostics: readonly Diagnostic[] | undefined): string | undefined {
  const first = unreadableFiles(diagnostics)[0];
  if (!first) return undefined;
  const line = /\(line (\d+)/.exec(first.message)?.[1];
  return `${basename(first.file!)} unreadable${line ? ` (line ${line})` : ''}`;
}
