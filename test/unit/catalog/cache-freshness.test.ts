import { describe, expect, it } from 'vitest';
import { freshUntil, isFresh } from '../../../src/catalog/cache-freshness.ts';

const HOUR = 3_600_000;

describe('cache freshness (the one rule of the cache and the start record)', () => {
  it.each([
    ['the maximum age without a ttl', { cachedAt: 1_000 }, 1_000 + 24 * HOUR],
    ['a shorter ttl of the entry', { cachedAt: 1_000, ttlMs: HOUR }, 1_000 + HOUR],
    ['never longer than the maximum age', { cachedAt: 1_000, ttlMs: 1_000 * HOUR }, 1_000 + 24 * HOUR],
    ['ttl 0: never fresh', { cachedAt: 1_000, ttlMs: 0 }, 1_000],
    ['a ttl that is no whole number is ignored', { cachedAt: 1_000, ttlMs: 1.5 }, 1_000 + 24 * HOUR],
    ['no cachedAt', {}, undefined],
    ['cachedAt not a positive number', { cachedAt: '1000' }, undefined],
    ['cachedAt 0', { cachedAt: 0 }, undefined],
  ])('%s', (_name, entry, expected) => {
    expect(freshUntil(entry, 24 * HOUR)).toBe(expected);
  });

  it('an entry is fresh before its end, not at it', () => {
    expect(isFresh({ cachedAt: 1_000, ttlMs: 10 }, 1_009)).toBe(true);
    expect(isFresh({ cachedAt: 1_000, ttlMs: 10 }, 1_010)).toBe(false);
    expect(isFresh({}, 1_000)).toBe(false);
  });
});
