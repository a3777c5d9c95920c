// Optional result stage: per-tool call statistics (calls, errors, latency, bytes). Records are batched
// and flushed to a JSON file at most `flushDelayMs` after the first unflushed one; a flush adds the
// new counts to what is on disk (other sessions may share the file) and replaces it atomically.

import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface ToolStats {
  calls: number;
  errors: number;
  totalMs: number;
  maxMs: number;
  bytes: number;
}

export interface CallStats {
  record(entry: { server: string; tool: string; ok: boolean; ms: number; bytes: number }): void;
  /** This session's totals, keyed `server/tool`. */
  snapshot(): Record<string, ToolStats>;
  /** Writes what is pending now. Never rejects; a failed write keeps the counts for the next flush. */
  flush(): Promise<void>;
  /** Cancels the pending timer and flushes; later records are counted but not scheduled. */
  dispose(): Promise<void>;
}

export type Schedule = (fn: () => void, ms: number) => { cancel(): void };

export interface CallStatsOptions {
  path: string;
  flushDelayMs: number;
  schedule?: Schedule;
  /** Told about failed writes and about an unreadable file that was moved aside. */
  onError?: (error: Error) => void;
}

interface StatsFile {
  version: 1;
  updatedAt: string;
  tools: Record<string, ToolStats>;
}

// The one timer outside a machine: a plain debounce around file I/O, unref'd so Pi can exit.
const defaultSchedule: Schedule = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
};

export function createCallStats(options: CallStatsOptions): CallStats {
  const schedule = options.schedule ?? defaultSchedule;
  const report = (error: unknown) =>
    options.onError?.(error instanceof Error ? error : new Error(String(error)));
  const session: Record<string, ToolStats> = {};
  let pending: Record<string, ToolStats> = {};
  let timer: { cancel(): void } | undefined;
  let writes: Promise<void> = Promise.resolve();
  let disposed = false;

  async function writePending(): Promise<void> {
    const delta = pending;
    if (Object.keys(delta).length === 0) return;
    pending = {};
    try {
      const tools = await readTools(options.path, report);
      mergeInto(tools, delta);
      const file: StatsFile = { version: 1, updatedAt: new Date().toISOString(), tools };
      await writeAtomic(options.path, `${JSON.stringify(file, null, 2)}\n`);
    } catch (error) {
      pending = mergeInto(delta, pending);
      report(error);
    }
  }

  function flush(): Promise<void> {
    timer?.cancel();
    timer = undefined;
    writes = writes.then(writePending);
    return writes;
  }

  return {
    record(entry) {
      const key = `${entry.server}/${entry.tool}`;
      const ms = Number.isFinite(entry.ms) ? Math.max(0, Math.round(entry.ms)) : 0;
      const bytes = Number.isFinite(entry.bytes) ? Math.max(0, entry.bytes) : 0;
      const one: ToolStats = { calls: 1, errors: entry.ok ? 0 : 1, totalMs: ms, maxMs: ms, bytes };
      mergeInto(session, { [key]: one });
      mergeInto(pending, { [key]: one });
      if (timer || disposed) return;
      try {
        timer = schedule(() => {
          timer = undefined;
          void flush();
        }, options.flushDelayMs);
      } catch (error) {
        report(error);
      }
    },
    snapshot: () => structuredClone(session),
    flush,
    dispose() {
      disposed = true;
      return flush();
    },
  };
}

function mergeInto(
  target: Record<string, ToolStats>,
  add: Record<string, ToolStats>,
): Record<string, ToolStats> {
  for (const [key, s] of Object.entries(add)) {
    const t = target[key];
    target[key] = t
      ? {
          calls: t.calls + s.calls,
          errors: t.errors + s.errors,
          totalMs: t.totalMs + s.totalMs,
          maxMs: Math.max(t.maxMs, s.maxMs),
          bytes: t.bytes + s.bytes,
        }
      : { ...s };
  }
  return target;
}

/** The counts on disk; a missing file is empty, an unreadable one is moved aside (never overwritten). */
async function readTools(path: string, report: (error: unknown) => void): Promise<Record<string, ToolStats>> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  try {
    const parsed = JSON.parse(raw) as Partial<StatsFile>;
    if (!parsed || typeof parsed.tools !== 'object' || parsed.tools === null)
      throw new Error('no "tools" object');
    const tools: Record<string, ToolStats> = {};
    for (const [key, s] of Object.entries(parsed.tools)) tools[key] = sanitize(s);
    return tools;
  } catch (error) {
    const aside = `${path}.corrupt-${Date.now()}`;
    await rename(path, aside);
    report(
      new Error(
        `Call statistics file ${path} was unreadable (${(error as Error).message}); moved to ${aside}`,
      ),
    );
    return {};
  }
}

function sanitize(value: unknown): ToolStats {
  const s = (value ?? {}) as Record<string, unknown>;
  const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0);
  return {
    calls: n(s.calls),
    errors: n(s.errors),
    totalMs: n(s.totalMs),
    maxMs: n(s.maxMs),
    bytes: n(s.bytes),
  };
}

async function writeAtomic(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, data, { mode: 0o600, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}
