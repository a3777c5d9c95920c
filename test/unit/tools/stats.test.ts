import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CallStats, createCallStats, type Schedule } from '../../../src/tools/stats.ts';
import { fileMode, makeTempDir } from './helpers.ts';

/** A scheduler the test runs by hand: no timers, no sleeps. */
function manualScheduler() {
  const tasks: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
  const schedule: Schedule = (fn, ms) => {
    const task = { fn, ms, cancelled: false };
    tasks.push(task);
    return { cancel: () => (task.cancelled = true) };
  };
  const live = () => tasks.filter((t) => !t.cancelled);
  const runAll = () => {
    for (const task of tasks.splice(0)) if (!task.cancelled) task.fn();
  };
  return { schedule, tasks, live, runAll };
}

let temp: ReturnType<typeof makeTempDir>;
let path: string;
beforeEach(() => {
  temp = makeTempDir();
  path = join(temp.dir, 'stats', 'mcp-stats.json');
});
afterEach(() => temp.cleanup());

const onDisk = () =>
  JSON.parse(readFileSync(path, 'utf8')) as {
    version: number;
    updatedAt: string;
    tools: Record<string, unknown>;
  };
const call = (stats: CallStats, tool: string, ok: boolean, ms: number, bytes = 100) =>
  stats.record({ server: 'everything', tool, ok, ms, bytes });

describe('createCallStats', () => {
  it('batches records into one flush after the delay, then writes a 0600 file atomically', async () => {
    const clock = manualScheduler();
    const stats = createCallStats({ path, flushDelayMs: 500, schedule: clock.schedule });
    call(stats, 'echo', true, 12.4);
    call(stats, 'echo', false, 30);
    call(stats, 'get-sum', true, 5, 20);
    expect(clock.tasks.map((t) => t.ms)).toEqual([500]);
    expect(existsSync(path)).toBe(false);

    clock.runAll();
    await stats.flush(); // waits for the write the timer started
    expect(onDisk().tools).toEqual({
      'everything/echo': { calls: 2, errors: 1, totalMs: 42, maxMs: 30, bytes: 200 },
      'everything/get-sum': { calls: 1, errors: 0, totalMs: 5, maxMs: 5, bytes: 20 },
    });
    expect(onDisk().version).toBe(1);
    expect(fileMode(path)).toBe(0o600);
    expect(readdirSync(join(temp.dir, 'stats'))).toEqual(['mcp-stats.json']);
  });

  it('schedules again only after a flush, and never counts a call twice', async () => {
    const clock = manualScheduler();
    const stats = createCallStats({ path, flushDelayMs: 100, schedule: clock.schedule });
    call(stats, 'echo', true, 1);
    clock.runAll();
    await stats.flush();
    call(stats, 'echo', true, 2);
    expect(clock.live()).toHaveLength(1);
    clock.runAll();
    await stats.flush();
    await stats.flush();
    expect(onDisk().tools['everything/echo']).toEqual({
      calls: 2,
      errors: 0,
      totalMs: 3,
      maxMs: 2,
      bytes: 200,
    });
  });

  it('adds to the counts already on disk (another session) and keeps their other tools', async () => {
    mkdirSync(join(temp.dir, 'stats'));
    writeFileSync(
      path,
      JSON.stringify({
        version: 1,
        updatedAt: '2025-01-01T00:00:00.000Z',
        tools: {
          'everything/echo': { calls: 10, errors: 2, totalMs: 100, maxMs: 50, bytes: 1000 },
          'github/search_code': { calls: 3, errors: 0, totalMs: 900, maxMs: 400, bytes: 9000 },
        },
      }),
    );
    const a = createCallStats({ path, flushDelayMs: 100, schedule: manualScheduler().schedule });
    const b = createCallStats({ path, flushDelayMs: 100, schedule: manualScheduler().schedule });
    call(a, 'echo', false, 80);
    call(b, 'echo', true, 10);
    await a.flush();
    await b.flush();
    expect(onDisk().tools).toEqual({
      'everything/echo': { calls: 12, errors: 3, totalMs: 190, maxMs: 80, bytes: 1200 },
      'github/search_code': { calls: 3, errors: 0, totalMs: 900, maxMs: 400, bytes: 9000 },
    });
  });

  it('moves an unreadable file aside instead of overwriting it, and says so', async () => {
    mkdirSync(join(temp.dir, 'stats'));
    writeFileSync(path, '{ not json');
    const errors: Error[] = [];
    const stats = createCallStats({
      path,
      flushDelayMs: 100,
      schedule: manualScheduler().schedule,
      onError: (e) => errors.push(e),
    });
    call(stats, 'echo', true, 1);
    await stats.flush();
    expect(onDisk().tools['everything/echo']).toMatchObject({ calls: 1 });
    const aside = readdirSync(join(temp.dir, 'stats')).filter((f) => f.includes('.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(temp.dir, 'stats', aside[0]!), 'utf8')).toBe('{ not json');
    expect(errors[0]?.message).toMatch(/unreadable .* moved to /);
  });

  it('keeps the counts when a write fails and writes them with the next flush', async () => {
    writeFileSync(join(temp.dir, 'stats'), 'a file where the directory should be');
    const errors: Error[] = [];
    const stats = createCallStats({
      path,
      flushDelayMs: 100,
      schedule: manualScheduler().schedule,
      onError: (e) => errors.push(e),
    });
    call(stats, 'echo', true, 1);
    await expect(stats.flush()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);

    rmSync(join(temp.dir, 'stats'));
    call(stats, 'echo', false, 2);
    await stats.flush();
    expect(onDisk().tools['everything/echo']).toEqual({
      calls: 2,
      errors: 1,
      totalMs: 3,
      maxMs: 2,
      bytes: 200,
    });
  });

  it('snapshot is this session only, as a copy', async () => {
    mkdirSync(join(temp.dir, 'stats'));
    writeFileSync(
      path,
      JSON.stringify({
        version: 1,
        tools: { 'everything/echo': { calls: 99, errors: 0, totalMs: 0, maxMs: 0, bytes: 0 } },
      }),
    );
    const stats = createCallStats({ path, flushDelayMs: 100, schedule: manualScheduler().schedule });
    call(stats, 'echo', true, 4);
    await stats.flush();
    const snapshot = stats.snapshot();
    expect(snapshot).toEqual({
      'everything/echo': { calls: 1, errors: 0, totalMs: 4, maxMs: 4, bytes: 100 },
    });
    snapshot['everything/echo']!.calls = 1000;
    expect(stats.snapshot()['everything/echo']!.calls).toBe(1);
  });

  it('dispose cancels the pending timer, writes what is pending, and schedules nothing after', async () => {
    const clock = manualScheduler();
    const stats = createCallStats({ path, flushDelayMs: 100, schedule: clock.schedule });
    call(stats, 'echo', true, 1);
    await stats.dispose();
    expect(clock.live()).toHaveLength(0);
    expect(onDisk().tools['everything/echo']).toMatchObject({ calls: 1 });
    call(stats, 'echo', true, 1);
    expect(clock.live()).toHaveLength(0);
  });

  it('the default scheduler flushes by itself', async () => {
    const stats = createCallStats({ path, flushDelayMs: 0 });
    call(stats, 'echo', true, 1);
    await vi.waitFor(() => expect(existsSync(path)).toBe(true));
    await stats.dispose();
    expect(onDisk().tools['everything/echo']).toMatchObject({ calls: 1 });
  });
});
