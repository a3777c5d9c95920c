// The one way a duration is spelled for people: `400 ms`, `1.5 s`, `30 s`, `2 min 5 s`, `1 h 5 min`.
// A configured duration keeps its precision (a 400 ms timeout is never "0 s"; under ten seconds one
// decimal is kept); a clock reading (how long ago, how long until the next try) is in whole seconds,
// rounded up, so a countdown never shows 0 before it is due.

export function formatDuration(ms: number, options: { wholeSeconds?: boolean } = {}): string {
  const value = Number.isFinite(ms) ? Math.max(0, ms) : 0;
  if (!options.wholeSeconds) {
    if (value < 1_000) return `${Math.round(value)} ms`;
    if (value < 10_000) return `${Number((value / 1_000).toFixed(1))} s`;
  }
  const seconds = options.wholeSeconds ? Math.ceil(value / 1_000) : Math.round(value / 1_000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes >= 60) {
    const hours = Math.floor(minutes / 60);
    return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  }
  const rest = seconds % 60;
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}

/** A clock reading: whole seconds, rounded up. */
export function formatElapsed(ms: number): string {
  return formatDuration(ms, { wholeSeconds: true });
}
