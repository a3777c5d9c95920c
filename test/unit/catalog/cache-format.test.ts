import { describe, expect, it } from 'vitest';
import { freshUntil, isFresh, parseCacheDocument } from '../../../src/catalog/cache-format.ts';

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

describe('the cache document', () => {
  it.each([
    ['', 'empty file'],
    ['{"version":1,"servers":', 'not valid JSON, possibly truncated'],
    ['[]', 'not a JSON object'],
    ['{"version":2,"servers":{}}', 'format version 2, expected 1'],
    ['{"servers":{}}', 'format version missing, expected 1'],
    ['{"version":1}', 'no "servers" object'],
  ])('%j is unusable: %s', (text, reason) => {
    expect(parseCacheDocument(text)).toEqual({ ok: false, reason });
  });

  it("gives the servers' raw entries of a usable file", () => {
    const parsed = parseCacheDocument('{"version":1,"servers":{"a":{"cachedAt":1}},"other":true}');
    expect(parsed.ok && parsed.servers).toEqual({ a: { cachedAt: 1 } });
  });
});
