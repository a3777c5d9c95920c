// The metadata cache's file format, `{ version: 1, servers: { <name>: entry } }`, and how long an entry
// stays fresh: the cache's own rules (./cache.ts), also read by Pi's start record
// (src/adapters/pi/start-record.ts), which must not load the cache module before the first model request.

import { DEFAULT_CACHE_MAX_AGE_MS } from '../config/defaults.ts';

export const CACHE_VERSION = 1;

export type CacheDocument =
  | { ok: true; document: Record<string, unknown>; servers: Record<string, unknown> }
  | { ok: false; reason: string };

/** The cache file's text as the cache uses it: its servers' raw entries, or why it is unusable. */
export function parseCacheDocument(text: string): CacheDocument {
  if (text.trim() === '') return { ok: false, reason: 'empty file' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not valid JSON, possibly truncated' };
  }
  if (!isRecord(parsed)) return { ok: false, reason: 'not a JSON object' };
  if (parsed.version !== CACHE_VERSION) {
    const found = JSON.stringify(parsed.version) ?? 'missing';
    return { ok: false, reason: `format version ${found}, expected ${CACHE_VERSION}` };
  }
  if (!isRecord(parsed.servers)) return { ok: false, reason: 'no "servers" object' };
  return { ok: true, document: parsed, servers: parsed.servers };
}

/** How long an entry stays fresh: the cache's maximum age, shortened by the entry's own `ttlMs`
 * (pi-mcp-adapter's, or a server's word on its tool list). */
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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
