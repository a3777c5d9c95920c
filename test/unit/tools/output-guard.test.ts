import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PiContent } from '../../../src/tools/content.ts';
import { guardOutput } from '../../../src/tools/output-guard.ts';
import { everythingResult, fileMode, makeTempDir, savedPaths } from './helpers.ts';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => temp.cleanup());

const KiB = 1024;
const MARKER = /(?:^|\n)\[… output truncated: (.+?) cut from the middle\. (.+?) …\](?:\n\n|$)/s;

/** Splits a guarded text into head, marker facts and tail. */
function splitAtMarker(text: string): { head: string; what: string; where: string; tail: string } {
  const match = MARKER.exec(text);
  if (!match) throw new Error(`no marker in ${text.slice(0, 200)}`);
  return {
    head: text.slice(0, match.index),
    what: match[1]!,
    where: match[2]!,
    tail: text.slice(match.index + match[0].length),
  };
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const lineCount = (s: string) => (s.match(/\n/g)?.length ?? 0) + (s !== '' && !s.endsWith('\n') ? 1 : 0);
const lines = (n: number, width = 40) =>
  Array.from({ length: n }, (_, i) => `line ${i + 1} `.padEnd(width, 'x')).join('\n');

describe('guardOutput', () => {
  it('leaves content within the limits untouched (the same array)', () => {
    const content: PiContent[] = [{ type: 'text', text: lines(100) }];
    expect(guardOutput(content, { limitBytes: 50 * KiB, tempDir: temp.dir, label: 'fs__read' })).toBe(
      content,
    );
    expect(readdirSync(temp.dir)).toEqual([]);
  });

  it('cuts large text in the middle, keeps head and tail, and saves the full text to a 0600 file', () => {
    const full = lines(5000); // ~200 KiB
    const [out] = guardOutput([{ type: 'text', text: full }], {
      limitBytes: 50 * KiB,
      tempDir: temp.dir,
      label: 'fs__read',
    });
    const { head, what, where, tail } = splitAtMarker((out as { text: string }).text);

    expect(head.startsWith('line 1 ')).toBe(true);
    expect(full.startsWith(head)).toBe(true);
    expect(full.endsWith(tail)).toBe(true);
    expect(tail.startsWith('line ')).toBe(true); // cut on a line boundary
    expect(tail.endsWith(`line 5000 `.padEnd(40, 'x'))).toBe(true);
    expect(bytes(head) + bytes(tail)).toBeLessThanOrEqual(50 * KiB);

    const cut = bytes(full) - bytes(head) - bytes(tail);
    expect(what).toMatch(/^\d+\.\d KiB \(\d[\d,]* lines\) of 200\.2 KiB$/);
    expect(what).toContain(`${(cut / KiB).toFixed(1)} KiB`);

    const [path] = savedPaths(where);
    expect(path).toMatch(/\/mcp-output-fs__read-[0-9a-f]+\.txt$/);
    expect(readFileSync(path!, 'utf8')).toBe(full);
    expect(fileMode(path!)).toBe(0o600);
  });

  it('cuts a single huge line (minified JSON with multi-byte text) on character boundaries', () => {
    const full = JSON.stringify(
      Array.from({ length: 4000 }, (_, i) => ({ id: i, name: `naïve café ✓ 𝄞 ${i}` })),
    );
    expect(full).not.toContain('\n');
    const [out] = guardOutput([{ type: 'text', text: full }], {
      limitBytes: 10 * KiB,
      tempDir: temp.dir,
      label: 'x',
    });
    const { head, tail } = splitAtMarker((out as { text: string }).text);
    expect(head.length).toBeGreaterThan(4 * KiB);
    expect(tail.length).toBeGreaterThan(4 * KiB);
    expect(full.startsWith(head)).toBe(true);
    expect(full.endsWith(tail)).toBe(true);
    expect(`${head}${tail}`).not.toContain('\uFFFD');
  });

  it('cuts by line count when there are many short lines under the byte limit', () => {
    const full = Array.from({ length: 3000 }, (_, i) => String(i)).join('\n');
    expect(bytes(full)).toBeLessThan(50 * KiB);
    const [out] = guardOutput([{ type: 'text', text: full }], {
      limitBytes: 50 * KiB,
      limitLines: 2000,
      tempDir: temp.dir,
      label: 'x',
    });
    const { head, what, tail } = splitAtMarker((out as { text: string }).text);
    expect(head.split('\n').filter(Boolean)).toEqual(Array.from({ length: 1000 }, (_, i) => String(i)));
    expect(tail.split('\n')).toEqual(Array.from({ length: 1000 }, (_, i) => String(i + 2000)));
    expect(what).toContain('(1,000 lines)');
  });

  it('counts all text blocks together, keeps images and order, and places one marker', () => {
    const image = everythingResult('get-tiny-image {}').content[1] as PiContent;
    const content: PiContent[] = [
      { type: 'text', text: `first ${'a'.repeat(30 * KiB)}` },
      image,
      { type: 'text', text: `second ${'b'.repeat(30 * KiB)}` },
      image,
      { type: 'text', text: `${'c'.repeat(30 * KiB)} last` },
    ];
    const out = guardOutput(content, { limitBytes: 40 * KiB, tempDir: temp.dir, label: 'x' });
    expect(out.filter((c) => c.type === 'image')).toHaveLength(2);
    const outTexts = out.flatMap((c) => (c.type === 'text' ? [c.text] : []));
    expect(outTexts.join('').match(/output truncated/g)).toHaveLength(1);
    expect(outTexts[0]!.startsWith('first ')).toBe(true);
    expect(outTexts.at(-1)!.endsWith(' last')).toBe(true);
    expect(outTexts.join('')).not.toContain('second');
    expect(out.map((c) => c.type)).toEqual(['text', 'image', 'image', 'text']);
    const [path] = savedPaths(outTexts[0]!);
    expect(readFileSync(path!, 'utf8')).toBe(
      content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n'),
    );
  });

  it('still cuts, and says the full text could not be saved, when the temp dir is unusable', () => {
    const notADir = join(temp.dir, 'file');
    writeFileSync(notADir, 'x');
    const [out] = guardOutput([{ type: 'text', text: lines(5000) }], {
      limitBytes: 8 * KiB,
      tempDir: notADir,
      label: 'x',
    });
    const { head, where } = splitAtMarker((out as { text: string }).text);
    expect(bytes(head)).toBeLessThanOrEqual(4 * KiB);
    expect(where).toMatch(/^The full output could not be saved \(.*(EEXIST|ENOTDIR).*\)\.$/);
  });

  it('property: output is head + marker + tail of the original, within the byte and line limits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.constant('\n')), {
          maxLength: 60,
        }),
        fc.integer({ min: 8, max: 200 }),
        fc.integer({ min: 2, max: 12 }),
        (pieces, limitBytes, limitLines) => {
          const full = pieces.join('');
          const content: PiContent[] = [{ type: 'text', text: full }];
          const out = guardOutput(content, { limitBytes, limitLines, tempDir: temp.dir, label: 'p' });
          const fullLines = full === '' ? 0 : full.split('\n').length - (full.endsWith('\n') ? 1 : 0);
          if (bytes(full) <= limitBytes && fullLines <= limitLines) return out === content;
          const { head, tail, where } = splitAtMarker((out[0] as { text: string }).text);
          const [path] = savedPaths(where);
          return (
            full.startsWith(head) &&
            full.endsWith(tail) &&
            bytes(head) + bytes(tail) <= limitBytes &&
            lineCount(head) + lineCount(tail) <= limitLines &&
            readFileSync(path!, 'utf8') === full
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
