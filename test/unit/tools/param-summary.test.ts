import { describe, expect, it } from 'vitest';
import { isArgumentError, summarizeParameters } from '../../../src/tools/param-summary.ts';
import { everything } from './helpers.ts';

describe('summarizeParameters', () => {
  it('summarises real server-everything schemas', () => {
    expect(summarizeParameters(everything.echoInputSchema as Record<string, unknown>)).toBe(
      'Parameters: message (string, required) — Message to echo',
    );
    expect(summarizeParameters(everything.resourceLinksInputSchema as Record<string, unknown>)).toBe(
      'Parameters: count (number, 1..10, default 3) — Number of resource links to return (1-10)',
    );
  });

  it('names enums, arrays, unions and nullable types', () => {
    const summary = summarizeParameters({
      type: 'object',
      properties: {
        messageType: { type: 'string', enum: ['error', 'success', 'debug'], description: 'Type of message' },
        paths: { type: 'array', items: { type: 'string' } },
        limit: { type: ['integer', 'null'], minimum: 1 },
        target: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        options: { type: 'object', properties: { a: { type: 'string' } } },
        anything: {},
      },
      required: ['messageType', 'paths'],
    });
    expect(summary).toBe(
      'Parameters: messageType ("error" | "success" | "debug", required) — Type of message; ' +
        'paths (array of string, required); limit (integer | null, >= 1); target (string | number); ' +
        'options (object); anything (any)',
    );
  });

  it('says when there are no parameters, clips long descriptions and long lists', () => {
    expect(summarizeParameters({ type: 'object', properties: {} })).toBe('Parameters: none.');
    expect(summarizeParameters({ type: 'object' })).toBe('Parameters: none.');
    const long = summarizeParameters({
      properties: { q: { type: 'string', description: `${'word '.repeat(60)}\nend` } },
    });
    expect(long.length).toBeLessThan(140);
    expect(long.endsWith('…')).toBe(true);
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`p${i}`, { type: 'string' }]));
    expect(summarizeParameters({ properties: many })).toMatch(/p19 \(string\); … and 5 more$/);
  });

  it('never throws on a malformed schema', () => {
    expect(summarizeParameters(null as unknown as Record<string, unknown>)).toBe('Parameters: none.');
    expect(summarizeParameters({ properties: { a: null, b: 'x' }, required: 'a' })).toBe(
      'Parameters: a (any); b (any)',
    );
  });
});

describe('isArgumentError', () => {
  it('recognises the real SDK validation error and other validation wording', () => {
    const real = (everything['echo {"message":42}']!.content[0] as { text: string }).text;
    expect(isArgumentError(real)).toBe(true);
    for (const message of [
      'MCP error -32602: Invalid params',
      'Invalid arguments: path is required',
      'Missing required parameter: owner',
      'Invalid resourceId: 0. Must be a finite positive integer.',
      'Expected string, received number at "query"',
      '[{"code":"invalid_type","expected":"string","received":"undefined","path":["owner"]}]',
      'data must NOT have additional properties',
    ]) {
      expect(isArgumentError(message), message).toBe(true);
    }
  });

  it('does not mistake other failures for argument errors', () => {
    for (const message of [
      'MCP error -32602: Tool nope not found',
      'MCP error -32602: Output validation error: Tool x has an output schema but no structured content was provided',
      'MCP error -32001: Request timed out',
      'read ECONNRESET',
      'Error: Operation failed',
      'ENOENT: no such file or directory, open /tmp/x',
    ]) {
      expect(isArgumentError(message), message).toBe(false);
    }
  });
});
