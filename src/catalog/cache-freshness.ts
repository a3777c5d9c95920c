// How long a metadata-cache entry stays fresh: the cache's maximum age, shortened by the entry's own
// `ttlMs` (pi-mcp-adapter's, or a server's word on its tool list). The cache's one rule, also used by
// Pi's start record (src/adapters/pi/start-record.ts), which must not load the cache module before the
// first model request.

import { DEFAULT_CACHE_MAX_AGE_MS } from '../config/defaults.ts';

/** Epoch ms at which the entry stops being fresh; undefined when it never was (no usable `cachedAt`). */
export function freshUntil(
  entry: { cachedAt?: unknown; ttlMs?: unknown },
  maxAgeMs: number = DEFAULT_CACHE_MAX_AGE_MS,
): number | undefined {
  const { cachedAt, ttlMs } = entry;
  if (typeof cachedAt !== 'number' || !Number.isFinite(cachedAt) || cachedAt <= 0) return undefined;
  const ownTtl = typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs >= 0;
  return cachedAt + (ownTtl ? Math.min(maxAgeMs, ttlMs) : maxAgeMs);
}

/** Whether the entry is fresh at `at` (epoch ms). */
export function isFresh(
  entry: { cachedAt?: unknown; ttlMs?: unknown },
  at: number,
  maxAgeMs: number = DEFAULT_CACHE_MAX_AGE_MS,
): boolean {
  const until = freshUntil(entry, maxAgeMs);
  return until !== undefined && at < until;
}
