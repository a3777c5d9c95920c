import { decode } from '@toon-format/toon';
import { describe, expect, it } from 'vitest';
import type { PiContent } from '../../../src/tools/content.ts';
import { maybeToon } from '../../../src/tools/toon.ts';
import { everythingResult } from './helpers.ts';

const one = (text: string) => (maybeToon([{ type: 'text', text }], true)[0] as { text: string }).text;

describe('maybeToon', () => {
  const rows = JSON.stringify(
    Array.from({ length: 20 }, (_, i) => ({
      id: i,
      name: `issue ${i}`,
      state: i % 3 ? 'open' : 'closed',
      comments: i * 2,
    })),
  );

  it('does nothing when disabled (the same array)', () => {
    const content: PiContent[] = [{ type: 'text', text: rows }];
    expect(maybeToon(content, false)).toBe(content);
  });

  it('re-encodes a uniform JSON array as TOON that is shorter and decodes to the same data', () => {
    const toon = one(rows);
    expect(toon).toMatch(/^\[20\]\{id,name,state,comments\}:/);
    expect(toon.length).toBeLessThan(rows.length);
    expect(decode(toon)).toEqual(JSON.parse(rows));
  });

  it('re-encodes the real get-structured-content text (compact JSON object)', () => {
    const text = (
      everythingResult('get-structured-content {"location":"Chicago"}').content[0] as { text: string }
    ).text;
    expect(one(text)).toBe('temperature: 36\nconditions: Light rain / drizzle\nhumidity: 82');
  });

  it('re-encodes pretty-printed JSON', () => {
    const pretty = JSON.stringify({ path: '/tmp', entries: ['a', 'b'] }, null, 2);
    expect(decode(one(pretty))).toEqual({ path: '/tmp', entries: ['a', 'b'] });
    expect(one(pretty).length).toBeLessThan(pretty.length);
  });

  it('keeps JSON whose TOON form is not strictly shorter', () => {
    for (const json of ['[[1,2],[3,4]]', '[1]', '[]']) expect(one(json)).toBe(json);
  });

  it('keeps {} rather than replacing it with an empty text', () => {
    expect(one('{}')).toBe('{}');
  });

  it('keeps JSON with integers too long for a JavaScript number', () => {
    const json = '{"id":12345678901234567890,"ok":true}';
    expect(one(json)).toBe(json);
  });

  it('leaves non-JSON text, near-JSON text and images untouched, without throwing', () => {
    const image: PiContent = { type: 'image', data: 'AAAA', mimeType: 'image/png' };
    const content: PiContent[] = [
      { type: 'text', text: 'Operation completed successfully' },
      { type: 'text', text: '[Resource: demo://resource/dynamic/text/2]\nResource 2' },
      { type: 'text', text: '{"truncated": [1, 2' },
      image,
    ];
    expect(maybeToon(content, true)).toEqual(content);
  });
});
