// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} references.
import { describe, expect, it } from 'vitest';
import { expandHome, interpolate } from '../../../src/config/interpolate.ts';

const context = {
  env: { TOKEN: 'abc123', EMPTY: '', HOST: 'example.com' },
  homeDir: '/home/u',
  cwd: '/work/app',
};
const value = (text: string, home = false) => {
  const result = interpolate(text, context, home);
  return result.ok ? result.value : result.problems;
};

describe('interpolate', () => {
  it('replaces every supported form', () => {
    expect(value('Bearer ${TOKEN}')).toBe('Bearer abc123');
    expect(value('${env:TOKEN}')).toBe('abc123');
    expect(value('$env:TOKEN/x')).toBe('abc123/x');
    expect(value('{env:TOKEN}')).toBe('abc123');
    expect(value('https://${HOST}/mcp?t=${TOKEN}')).toBe('https://example.com/mcp?t=abc123');
  });

  it('uses the default when the variable is unset or empty', () => {
    expect(value('${MISSING:-fallback}')).toBe('fallback');
    expect(value('${EMPTY:-fallback}')).toBe('fallback');
    expect(value('${TOKEN:-fallback}')).toBe('abc123');
    expect(value('${MISSING:-}')).toBe('');
    expect(value('${MISSING:-a:b}c')).toBe('a:bc');
  });

  it('keeps a set-but-empty variable empty', () => {
    expect(value('x${EMPTY}y')).toBe('xy');
  });

  it('reports every missing variable, never an empty string', () => {
    expect(value('${A}-${B}-$env:C-{env:D}-${env:E}')).toEqual([
      { kind: 'missing', variable: 'A' },
      { kind: 'missing', variable: 'B' },
      { kind: 'missing', variable: 'C' },
      { kind: 'missing', variable: 'D' },
      { kind: 'missing', variable: 'E' },
    ]);
  });

  it("knows VS Code's ${workspaceFolder} and ${userHome}, refuses ${input:…} and malformed forms", () => {
    expect(value('${workspaceFolder}/tools')).toBe('/work/app/tools');
    expect(value('${userHome}/x')).toBe('/home/u/x');
    expect(value('${input:api-key}')).toEqual([{ kind: 'unsupported', expression: '${input:api-key}' }]);
    expect(value('${not valid}')).toEqual([{ kind: 'unsupported', expression: '${…}' }]);
    expect(value('abc${TOKEN')).toEqual([{ kind: 'unsupported', expression: '${ without a closing }' }]);
  });

  it('leaves text that is not a variable alone and unescapes $${', () => {
    expect(value('pa$$word $HOME {env:} $env:')).toBe('pa$$word $HOME {env:} $env:');
    expect(value('$${TOKEN}')).toBe('${TOKEN}');
    expect(value('{not-env}')).toBe('{not-env}');
  });

  it('expands a leading ~ only where asked', () => {
    expect(value('~/projects', true)).toBe('/home/u/projects');
    expect(value('~', true)).toBe('/home/u');
    expect(value('~/projects')).toBe('~/projects');
    expect(value('a/~/b', true)).toBe('a/~/b');
    expect(value('~other/x', true)).toBe('~other/x');
    expect(expandHome('~/x', '/h')).toBe('/h/x');
    expect(expandHome('/abs', '/h')).toBe('/abs');
  });
});
