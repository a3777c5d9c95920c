// The server machine's named delays: how long each waits, computed from the definition and context.
// The chart (./server.machine.ts) names them in setup(); tests read the bounds.

import type { ServerDefinition } from '../config/types.ts';

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 5 * 60_000;
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
/** The longest a health ping may go unanswered (shorter when the interval is). */
export const HEALTH_TIMEOUT_MS = 10_000;
/** A burst of list_changed notifications is read once: when they pause this long… */
export const LIST_CHANGED_QUIET_MS = 100;
/** …or at the latest this long after the first one. */
export const LIST_CHANGED_MAX_WAIT_MS = 1_000;
/** setTimeout fires at once for delays above 2^31-1 ms: a configured duration longer than that is clamped. */
const MAX_TIMER_MS = 2_147_483_647;

export function timerMs(ms: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(0, ms));
}

/** The longest backoff wait for a given attempt: base · 2^(attempt-1), capped. */
export function backoffCeilingMs(attempt: number): number {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
}

/** Full jitter: anywhere between 0 and the ceiling; `jitter` is in [0, 1]. */
export function fullJitterDelayMs(attempt: number, jitter: number): number {
  return Math.floor(Math.min(1, Math.max(0, jitter)) * backoffCeilingMs(attempt));
}

export function startupTimeoutMs(definition: ServerDefinition): number {
  return definition.startupTimeoutMs > 0 ? definition.startupTimeoutMs : DEFAULT_STARTUP_TIMEOUT_MS;
}
