import { describe, expect, it } from 'vitest';
import { formatOf, parseConfigText } from '../../../src/config/parse.ts';

describe('parseConfigText', () => {
  it('reads JSONC: comments, trailing commas, a BOM', () => {
    const text = '\uFEFF{\n  // servers\n  "a": [1, 2,], /* block */\n  "b": { "c": true, },\n}\n';
    expect(parseConfigText(text, 'json')).toEqual({
      ok: true,
      empty: false,
      value: { a: [1, 2], b: { c: true } },
      duplicateKeys: [],
    });
  });

  it('treats whitespace, a lone BOM and comment-only files as empty', () => {
    for (const text of ['', '  \n', '\uFEFF', '// nothing\n/* here */']) {
      expect(parseConfigText(text, 'json')).toEqual({ ok: true, empty: true });
    }
    expect(parseConfigText('# only a comment\n', 'toml')).toMatchObject({
      ok: true,
      empty: false,
      value: {},
    });
  });

  it('gives line and column of the first JSON error', () => {
    expect(parseConfigText('{\n  "a": 1\n  "b": 2\n}', 'json')).toEqual({
      ok: false,
      line: 3,
      column: 3,
      reason: 'expected "," (or a closing bracket)',
    });
    expect(parseConfigText('{"a": tru}', 'json')).toMatchObject({
      ok: false,
      line: 1,
      reason: 'unexpected character',
    });
  });

  it('gives line and column of a TOML error', () => {
    expect(parseConfigText('a = 1\nb = = 2\n', 'toml')).toMatchObject({ ok: false, line: 2 });
  });

  it('reports duplicate keys with their path and keeps the last value', () => {
    const result = parseConfigText('{"s": {"x": {"a": 1}, "x": {"a": 2}}}', 'json');
    expect(result).toEqual({
      ok: true,
      empty: false,
      value: { s: { x: { a: 2 } } },
      duplicateKeys: [['s', 'x']],
    });
  });

  it('reads plain JSON the same way, strings holding quotes, colons and braces included', () => {
    const text = '{"a\\"b": "x: {\\"y\\": 1}", "c": [{"d": null}, "e:"], "f" : {}}';
    expect(parseConfigText(text, 'json')).toEqual({
      ok: true,
      empty: false,
      value: { 'a"b': 'x: {"y": 1}', c: [{ d: null }, 'e:'], f: {} },
      duplicateKeys: [],
    });
    expect(parseConfigText('{"k\\"": 1, "k\\"": 2}', 'json')).toMatchObject({
      value: { 'k"': 2 },
      duplicateKeys: [['k"']],
    });
  });

  it('keeps __proto__ as an own key', () => {
    const result = parseConfigText('{"__proto__": {"polluted": true}}', 'json');
    if (!result.ok || result.empty) throw new Error('expected a value');
    const value = result.value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('reports absurd nesting as an error instead of overflowing the stack', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(parseConfigText(deep, 'json')).toEqual({
      ok: false,
      line: 1,
      column: 1,
      reason: 'the document is too deeply nested to read',
    });
    const deepToml = `a = ${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    expect(parseConfigText(deepToml, 'toml')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('nested'),
    });
  });

  it('chooses the format by extension', () => {
    expect(formatOf('/x/config.toml')).toBe('toml');
    expect(formatOf('/x/CONFIG.TOML')).toBe('toml');
    expect(formatOf('/x/mcp.json')).toBe('json');
    expect(formatOf('/x/opencode.jsonc')).toBe('json');
  });
});
