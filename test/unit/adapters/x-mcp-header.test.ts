// SEP-2243 `x-mcp-header` marks: which tools a 2026-07-28 client over HTTP must leave out.
import { describe, expect, it } from 'vitest';
import { headerMarkProblem } from '../../../src/adapters/mcp/x-mcp-header.ts';

const tool = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('x-mcp-header marks', () => {
  it('accepts tools without marks and marks on string, integer and boolean properties', () => {
    expect(headerMarkProblem(tool({ q: { type: 'string' } }))).toBeUndefined();
    expect(
      headerMarkProblem(
        tool({
          region: { type: 'string', 'x-mcp-header': 'Region' },
          priority: { type: 'integer', 'x-mcp-header': 'Priority' },
          nested: { type: 'object', properties: { flag: { type: 'boolean', 'x-mcp-header': 'X-Flag_1' } } },
        }),
      ),
    ).toBeUndefined();
  });

  it.each([
    ['empty', { v: { type: 'string', 'x-mcp-header': '' } }, /empty/],
    ['object', { v: { type: 'object', 'x-mcp-header': 'V' } }, /object property/],
    ['array', { v: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'V' } }, /array property/],
    ['null', { v: { type: 'null', 'x-mcp-header': 'V' } }, /null property/],
    ['number', { v: { type: 'number', 'x-mcp-header': 'V' } }, /number property/],
    ['space', { v: { type: 'string', 'x-mcp-header': 'My Region' } }, /not an HTTP header name/],
    ['colon', { v: { type: 'string', 'x-mcp-header': 'Region:1' } }, /not an HTTP header name/],
    ['non-ASCII', { v: { type: 'string', 'x-mcp-header': 'Région' } }, /not an HTTP header name/],
    ['control character', { v: { type: 'string', 'x-mcp-header': 'Region\t1' } }, /not an HTTP header name/],
    [
      'duplicate, other case',
      { a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } },
      /used twice/,
    ],
  ])('rejects a mark that is %s', (_, properties, problem) => {
    expect(headerMarkProblem(tool(properties))).toMatch(problem);
  });

  it('rejects a mark that is not on a fixed path of properties', () => {
    expect(
      headerMarkProblem(tool({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } })),
    ).toMatch(/outside a plain property/);
    expect(
      headerMarkProblem(
        tool({}, { anyOf: [{ properties: { v: { type: 'string', 'x-mcp-header': 'V' } } }] }),
      ),
    ).toMatch(/outside a plain property/);
    expect(headerMarkProblem({ type: 'string', 'x-mcp-header': 'Root' })).toMatch(/outside a plain property/);
  });
});
