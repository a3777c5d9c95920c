// The deadlines of a session's line to the shared host, in one place (the greeting's is the link
// chart's named delay, src/machines/host-link.machine.ts). A host that does not answer in
// time is treated as gone: the session runs its servers itself and says so once.

/** From connecting to a proven welcome (the link chart's `greetingDeadline`): a silent host is gone. */
export { GREETING_DEADLINE_MS } from '../../machines/host-link.machine.ts';

/**
 * How long a session waits for a host it started to answer (the `hostStart` chart's `startDeadline`; the
 * host says when it listens, and exits early when it cannot serve).
 */
export { HOST_START_DEADLINE_MS } from '../../machines/host-start.machine.ts';

/** After the host could not be used, a runtime runs its servers itself this long before it tries again. */
export const HOST_RETRY_AFTER_MS = 60_000;

/** Extra time the host gets beyond a call's own timeout before the session gives up on it. */
export const CALL_GRACE_MS = 2_000;

/** How long a reconnect waits for the host's answer to a restart before it goes on without it. */
export const RESTART_ANSWER_MS = 5_000;
