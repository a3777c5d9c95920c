import { describe, expect, test } from 'vitest';
import { StderrTail } from '../../../src/adapters/mcp/stderr-tail.ts';

describe('StderrTail', () => {
  test('joins chunks into lines and returns the lines each chunk finished', () => {
    const tail = new StderrTail();
    expect(tail.write('first li')).toEqual([]);
    expect(tail.write('ne\r\nsecond\nthi')).toEqual(['first line', 'second']);
    expect(tail.text()).toBe('first line\nsecond\nthi');
    expect(tail.lastLine()).toBe('thi');
    expect(tail.write('rd\n\n')).toEqual(['third']);
    expect(tail.lastLine()).toBe('third');
  });

  test('keeps only the last maxLines lines', () => {
    const tail = new StderrTail({ maxLines: 3 });
    for (let i = 1; i <= 10; i++) tail.write(`line ${i}\n`);
    expect(tail.text()).toBe('line 8\nline 9\nline 10');
  });

  test('keeps at most maxBytes, dropping the oldest lines', () => {
    const tail = new StderrTail({ maxLines: 1000, maxBytes: 100 });
    for (let i = 0; i < 50; i++) tail.write(`${String(i).padStart(2, '0')} ${'x'.repeat(20)}\n`);
    expect(Buffer.byteLength(tail.text())).toBeLessThanOrEqual(100);
    expect(tail.text().endsWith(`49 ${'x'.repeat(20)}`)).toBe(true);
  });

  test('cuts over-long lines, and a line without a newline cannot grow without bound', () => {
    const tail = new StderrTail({ maxLineLength: 10 });
    tail.write(`${'a'.repeat(25)}\n`);
    expect(tail.text()).toBe(`${'a'.repeat(10)}…`);
    tail.write('b'.repeat(50));
    expect(tail.text().split('\n')).toEqual([`${'a'.repeat(10)}…`, `${'b'.repeat(10)}…`]);
  });

  test('addLine adds a line verbatim (for ignored stdout output)', () => {
    const tail = new StderrTail();
    tail.addLine('[stdout] banner');
    expect(tail.text()).toBe('[stdout] banner');
  });

  test("another process of the same start keeps the earlier one's lines and says each line once", () => {
    const tail = new StderrTail();
    tail.nextProcess();
    tail.write('exiting: server/discover before initialize\nboom\n');
    tail.nextProcess();
    tail.write('boom\nserving\n');
    expect(tail.text()).toBe('exiting: server/discover before initialize\nboom\nserving');
    tail.clear();
    tail.write('boom\n');
    expect(tail.text()).toBe('boom');
  });
});
