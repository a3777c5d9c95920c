import { describe, expect, it } from 'vitest';
import { formatDuration, formatElapsed } from '../../src/duration.ts';

describe('formatDuration', () => {
  it.each([
    [0, '0 ms'],
    [1, '1 ms'],
    [400, '400 ms'],
    [999, '999 ms'],
    [1_000, '1 s'],
    [1_500, '1.5 s'],
    [9_940, '9.9 s'],
    [10_400, '10 s'],
    [59_000, '59 s'],
    [60_000, '1 min'],
    [90_000, '1 min 30 s'],
    [299_500, '5 min'],
    [3_600_000, '1 h'],
    [2 * 3_600_000 + 5 * 60_000 + 7_000, '2 h 5 min'],
    [-5_000, '0 ms'],
    [Number.NaN, '0 ms'],
  ])('spells %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it.each([
    [0, '0 s'],
    [1, '1 s'],
    [999, '1 s'],
    [1_001, '2 s'],
    [59_000, '59 s'],
    [90_000, '1 min 30 s'],
    [299_500, '5 min'],
  ])('reads a clock of %d ms as %s (whole seconds, rounded up)', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });
});
