// The rule for structuredContent (docs/results.md): added only when the text does not carry it already.

import { describe, expect, it } from 'vitest';
import { textCarries } from '../../../src/tools/structured-content.ts';

describe('textCarries', () => {
  it('a file’s text and { content: text } (server-filesystem read_text_file): carried, spacing aside', () => {
    const file = 'line one\n\n  line two\tend\n';
    expect(textCarries([file], { content: file })).toBe(true);
    expect(textCarries(['line one line two end'], { content: file })).toBe(true);
  });

  it('JSON text equal to the value up to key order: carried', () => {
    expect(textCarries(['{"b": 1, "a": [true, null]}'], { a: [true, null], b: 1 })).toBe(true);
  });

  it('every string, number and boolean said in prose: carried', () => {
    expect(
      textCarries(['Weather in Chicago: 36 degrees, Light rain / drizzle, humidity 82; windy: true'], {
        temperature: 36,
        conditions: 'Light rain / drizzle',
        humidity: 82,
        windy: true,
      }),
    ).toBe(true);
  });

  it('a value the text lacks, or a number only inside another: not carried', () => {
    expect(textCarries(['Weather fetched.'], { temperature: 36 })).toBe(false);
    expect(textCarries(['Temperature 360'], { temperature: 36 })).toBe(false);
    expect(textCarries(['Temperature 3.6'], { temperature: 6 })).toBe(false);
    expect(textCarries(['Created the file'], { created: true })).toBe(false);
    expect(textCarries(['{"a":1}'], { a: 1, b: 'more' })).toBe(false);
  });

  it('a value with nothing to say (nulls, empty strings, {}): carried by any text', () => {
    expect(textCarries(['done'], {})).toBe(true);
    expect(textCarries(['done'], { note: '', extra: null })).toBe(true);
  });
});
