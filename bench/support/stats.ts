// Small statistics helpers for the benchmarks: medians, percentiles and rounding for the report.

export function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Nearest-rank percentile (p in 0..1) of the values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = Math.ceil(p * s.length) - 1;
  return s[Math.min(s.length - 1, Math.max(0, rank))]!;
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function mean(values: number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Rounds to `digits` decimals (keeps results.json readable). */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** ours / reference, rounded; NaN when the reference is zero or missing. */
export function ratio(ours: number, reference: number): number {
  return reference > 0 && Number.isFinite(ours) ? round(ours / reference, 3) : Number.NaN;
}

export interface Summary {
  n: number;
  medianMs: number;
  p99Ms: number;
  minMs: number;
  maxMs: number;
}

export function summarize(timesMs: number[]): Summary {
  return {
    n: timesMs.length,
    medianMs: round(median(timesMs)),
    p99Ms: round(percentile(timesMs, 0.99)),
    minMs: round(Math.min(...timesMs)),
    maxMs: round(Math.max(...timesMs)),
  };
}
