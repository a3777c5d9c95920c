// Text → value for JSON/JSONC and TOML files. Parse errors carry line and column; a file that does
// not parse is dropped as a whole by the caller. Objects are built with own properties only, so a
// key named `__proto__` is just a key.

import { createRequire } from 'node:module';
import type { Node, ParseError } from 'jsonc-parser';
import { isPlainObject, setOwn } from '../plain-object.ts';
import type { PathSegment } from './json-path.ts';

// The parsers load when a file of their kind is read (a session without a TOML import never loads
// smol-toml), through Node's own require: both ship CommonJS builds, which load faster than a transpile.
const requireParser = createRequire(import.meta.url);
let jsonc: typeof import('jsonc-parser') | undefined;
let toml: typeof import('smol-toml') | undefined;
const jsoncParser = () => (jsonc ??= requireParser('jsonc-parser') as typeof import('jsonc-parser'));
const tomlParser = () => (toml ??= requireParser('smol-toml') as typeof import('smol-toml'));

export type FileFormat = 'json' | 'toml';

export type ParseResult =
  | { ok: true; empty: true }
  | { ok: true; empty: false; value: unknown; duplicateKeys: PathSegment[][] }
  | { ok: false; line: number; column: number; reason: string };

const BOM = '\uFEFF';

export function formatOf(file: string): FileFormat {
  return file.toLowerCase().endsWith('.toml') ? 'toml' : 'json';
}

export function parseConfigText(text: string, format: FileFormat): ParseResult {
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  if (body.trim() === '') return { ok: true, empty: true };
  return format === 'toml' ? parseTomlText(body) : parseJsonText(body);
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

const JSON_REASONS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected "," (or a closing bracket)',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'unexpected content after the end of the document',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid unicode escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in string',
};

function parseJsonText(text: string): ParseResult {
  const plain = plainJson(text);
  if (plain !== undefined) return { ok: true, empty: false, value: plain.value, duplicateKeys: [] };
  const { parseTree, printParseErrorCode, stripComments } = jsoncParser();
  const errors: ParseError[] = [];
  let root: Node | undefined;
  try {
    root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  } catch {
    return { ok: false, line: 1, column: 1, reason: 'the document is too deeply nested to read' };
  }
  const first = errors[0];
  // Only comments: as good as empty.
  if ((first !== undefined || root === undefined) && stripComments(text).trim() === '')
    return { ok: true, empty: true };
  if (first !== undefined) {
    const { line, column } = lineAndColumn(text, first.offset);
    const code = printParseErrorCode(first.error);
    return { ok: false, line, column, reason: JSON_REASONS[code] ?? code };
  }
  if (root === undefined) return { ok: true, empty: true };
  const duplicateKeys: PathSegment[][] = [];
  try {
    return { ok: true, empty: false, value: nodeValue(root, [], duplicateKeys), duplicateKeys };
  } catch {
    return { ok: false, line: 1, column: 1, reason: 'the document is too deeply nested to read' };
  }
}

/**
 * Plain JSON without duplicate keys, the usual file, is read by JSON.parse (own `__proto__` keys
 * included), which spares loading the JSONC parser on Pi's way to the first request. Comments, trailing
 * commas, errors and duplicates (fewer keys parsed than written) take the JSONC path for their details.
 */
function plainJson(text: string): { value: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return keysWritten(text) === keysParsed(value) ? { value } : undefined;
  } catch {
    return undefined;
  }
}

/** Object keys in valid JSON text: the strings followed by a colon. */
function keysWritten(text: string): number {
  let keys = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '"') continue;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    let next = i + 1;
    while (next < text.length && /\s/.test(text[next]!)) next++;
    if (text[next] === ':') keys++;
  }
  return keys;
}

function keysParsed(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + keysParsed(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.values(value).reduce((n: number, item) => n + keysParsed(item), Object.keys(value).length);
}

function nodeValue(node: Node, path: PathSegment[], duplicates: PathSegment[][]): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (keyNode === undefined || typeof keyNode.value !== 'string') continue;
        const key = keyNode.value;
        if (Object.hasOwn(out, key)) duplicates.push([...path, key]);
        path.push(key);
        const value = valueNode === undefined ? null : nodeValue(valueNode, path, duplicates);
        path.pop();
        setOwn(out, key, value);
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map((child, index) => {
        path.push(index);
        const value = nodeValue(child, path, duplicates);
        path.pop();
        return value;
      });
    default:
      return node.value;
  }
}

function parseTomlText(text: string): ParseResult {
  try {
    return { ok: true, empty: false, value: tomlParser().parse(text), duplicateKeys: [] };
  } catch (error) {
    const line = numberProp(error, 'line') ?? 1;
    const column = numberProp(error, 'column') ?? 1;
    const message = error instanceof Error ? error.message : String(error);
    const reason = (message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '') || 'invalid TOML';
    return { ok: false, line, column, reason };
  }
}

function numberProp(value: unknown, key: string): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const found = (value as Record<string, unknown>)[key];
  return typeof found === 'number' && Number.isFinite(found) ? found : undefined;
}

/** The kind of a value, never the value itself (it may be a secret). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (isPlainObject(value)) return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a whole number' : 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  if (value instanceof Date) return 'a date';
  return typeof value;
}
