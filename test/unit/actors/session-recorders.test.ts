// The session's recorders on their own: what each holds while it runs, that a flush puts it on disk,
// and that a stopped recorder holds nothing. Real files in a temp folder; the runtime's use of them is
// in test/integration/ (supervisor: the cache, trace: the trace file, executor: captureStats).

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor } from 'xstate';
import { sessionRecorders } from '../../../src/actors/session-recorders.ts';
import { createCacheStore } from '../../../src/catalog/cache.ts';
import type { Settings } from '../../../src/config/types.ts';
import { nullLogger } from '../../../src/logger.ts';
import type { RecorderInput } from '../../../src/machines/session.machine.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { definition, loadedConfig } from '../../support/config.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pi-mcp-recorders-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const tool = { name: 'echo', inputSchema: { type: 'object' as const } };
const catalog = { tools: [tool], resources: [], capabilities: {}, transport: 'stdio' as const };

function input(settings: Partial<Settings> = {}, trace = false): RecorderInput {
  return { cwd: dir, config: loadedConfig([definition({ name: 'fx', trace })], settings) };
}

describe('session recorders', () => {
  it('the cache writer writes each live catalog; a flush waits for the writes so far', async () => {
    const file = join(dir, 'mcp-cache.json');
    const recorders = sessionRecorders(createCacheStore({ file }), nullLogger, new SecretValues());
    const writer = createActor(recorders.cacheWriter, { input: input() }).start();
    writer.send({ type: 'WRITE', name: 'fx', catalog });
    writer.send({ type: 'WRITE', name: 'not-configured', catalog });
    await recorders.flush([writer as AnyActorRef]);
    const servers = JSON.parse(readFileSync(file, 'utf8')).servers;
    expect(Object.keys(servers)).toEqual(['fx']);
    expect(servers.fx.tools.map((t: { name: string }) => t.name)).toEqual(['echo']);
    writer.stop();
  });

  it('the stats recorder holds the call statistics while it runs; a flush writes them', async () => {
    const path = join(dir, 'stats.json');
    const recorders = sessionRecorders(undefined, nullLogger, new SecretValues());
    const stats = createActor(recorders.stats, {
      input: input({ captureStats: { path, flushDelayMs: 60_000 } }),
    }).start();
    recorders.statsOf(stats)?.record({ server: 'fx', tool: 'echo', ok: true, ms: 3, bytes: 10 });
    await recorders.flush([stats]);
    expect(JSON.parse(readFileSync(path, 'utf8')).tools['fx/echo']).toMatchObject({ calls: 1, errors: 0 });
    stats.stop();
    expect(recorders.statsOf(stats)).toBeUndefined();
  });

  it('without captureStats or a traced server, the recorders hold nothing', () => {
    const recorders = sessionRecorders(undefined, nullLogger, new SecretValues());
    const stats = createActor(recorders.stats, { input: input() }).start();
    const trace = createActor(recorders.trace, { input: input() }).start();
    expect(recorders.statsOf(stats)).toBeUndefined();
    expect(recorders.traceOf(trace)).toBeUndefined();
  });

  it("the trace recorder opens the session's trace file while it runs, and lets it go when stopped", async () => {
    const recorders = sessionRecorders(undefined, nullLogger, new SecretValues());
    const trace = createActor(recorders.trace, { input: input({}, true) }).start();
    const log = recorders.traceOf(trace);
    expect(log?.file.startsWith(join(dir, '.pi', 'mcp-traces'))).toBe(true);
    log?.sink(
      'fx',
      'stdio',
    )({ direction: 'outbound', kind: 'request', method: 'ping', status: 'sent', bytes: 5 });
    await recorders.flush([trace]);
    expect(readdirSync(join(dir, '.pi', 'mcp-traces'))).toHaveLength(1);
    expect(readFileSync(log!.file, 'utf8')).toContain('"method":"ping"');
    trace.stop();
    expect(recorders.traceOf(trace)).toBeUndefined();
  });
});
