// The ToolSearch use case through its deps object, over a real session runtime and real stdio fixture
// servers: `known` has its tools in the cache, `slow` has none and its tools/list waits on a gate file,
// so a search waits for it; the search's clock is simulated, so the test says when that wait ends.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { createRuntime, type Runtime } from '../../../src/actors/session-actor.ts';
import { connectMcp } from '../../../src/adapters/mcp/index.ts';
import { type CacheStore, cachedServerFromCatalog } from '../../../src/catalog/cache.ts';
import { nullLogger } from '../../../src/logger.ts';
import type { StartRequest } from '../../../src/machines/session.machine.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { silentHost } from '../../../src/session/host-port.ts';
import { SEARCH_WAIT_MS, searchTools } from '../../../src/session/search-tools.ts';
import { stdioFixture } from '../../fixtures/servers/spawn.ts';
import { definition, loadedConfig } from '../../support/config.ts';
import { untilNoFixtureServers } from '../../support/fixture-processes.ts';
import { KNOWN_TOOLS, resultText } from '../../support/runtime.ts';
import { armedClock, runtimeDeps } from '../../support/session-deps.ts';

let root: string;
let gate: string;
let runtime: Runtime;
let request: StartRequest;

/** A metadata cache that knows the tools of `known` only. */
const knownOnly: CacheStore = {
  file: '(memory)',
  read: () => ({ servers: {}, diagnostics: [], found: true }),
  validEntry: (def) =>
    def.name === 'known' ? cachedServerFromCatalog(def, { tools: KNOWN_TOOLS, resources: [] }) : undefined,
  write: async () => {},
};

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-search-tools-'));
  gate = join(root, 'list-gate');
  writeFileSync(gate, '');
  const config = loadedConfig([
    definition({ name: 'known', ...stdioFixture(['--name', 'known']) }),
    definition({
      name: 'slow',
      ...stdioFixture(['--name', 'slow', '--list-wait-while', gate]),
      startupTimeoutMs: 120_000,
    }),
  ]);
  runtime = createRuntime({
    secrets: new SecretValues(),
    host: silentHost(),
    connector: connectMcp,
    loadConfig: () => config,
    cache: knownOnly,
    logger: nullLogger,
    tempDir: root,
  });
  request = { cwd: root, projectTrusted: true };
  await runtime.start(request);
});

afterEach(async () => {
  await runtime.stop();
  runtime.dispose();
  rmSync(root, { recursive: true, force: true });
  await untilNoFixtureServers();
});

const activated = () => runtime.actor.getSnapshot().context.activated;

describe('searchTools', () => {
  it('waits SEARCH_WAIT_MS on its clock for a server listing its tools, then loads what is known and names the one still listing', async () => {
    const clock = armedClock();
    const answer = searchTools(runtimeDeps(runtime, root, { clock }), 'select:known__echo');
    await clock.armed;
    expect(runtime.servers().slow!.getSnapshot().hasTag('listing')).toBe(true);
    clock.increment(SEARCH_WAIT_MS);
    const text = resultText(await answer);
    expect(text).toContain('known__echo');
    expect(text).toMatch(/"slow" is still starting \(listing its tools\)/);
    expect(activated()).toEqual(['known__echo']);
  });

  it('starts the servers of the tools it loaded only when startLoadedServers says so', async () => {
    rmSync(gate);
    await waitFor(runtime.actor, (s) => Boolean(s.context.catalogs.slow), { timeout: 20_000 });
    const known = runtime.servers().known!;

    await searchTools(runtimeDeps(runtime, root, { startLoadedServers: false }), 'select:known__echo');
    expect(activated()).toEqual(['known__echo']);
    expect(known.getSnapshot().hasTag('resting')).toBe(true);

    await searchTools(runtimeDeps(runtime, root), 'select:known__slow_echo');
    await waitFor(known, (s) => s.hasTag('usable'), { timeout: 20_000 });
  });

  it('a search that waited across a new session start loads nothing and says so, instead of "Loaded" and a stale trouble', async () => {
    const clock = armedClock();
    const answer = searchTools(runtimeDeps(runtime, root, { clock }), 'select:known__echo');
    await clock.armed;
    const before = runtime.actor.getSnapshot().context.generation;
    // Pi's /new while the search waits: the old session stops (its servers closed), the next one runs.
    await runtime.start(request);
    expect(runtime.actor.getSnapshot().context.generation).toBe(before + 1);
    clock.increment(SEARCH_WAIT_MS);
    const text = resultText(await answer);
    expect(text).toMatch(/^The MCP session was stopped or restarted while this search waited/);
    expect(text).not.toMatch(/Loaded|failing/);
    expect(activated()).toEqual([]);
    expect(runtime.actor.getSnapshot().context.troublesTold).toEqual([]);
    // The new session's own search loads as usual.
    rmSync(gate);
    expect(resultText(await searchTools(runtimeDeps(runtime, root), 'select:known__echo'))).toContain(
      'known__echo',
    );
    expect(activated()).toEqual(['known__echo']);
  });

  it("a search that waited across the session's shutdown says nothing was loaded", async () => {
    const clock = armedClock();
    const answer = searchTools(runtimeDeps(runtime, root, { clock }), 'select:known__echo');
    await clock.armed;
    await runtime.stop();
    clock.increment(SEARCH_WAIT_MS);
    expect(resultText(await answer)).toMatch(
      /^The MCP session was stopped or restarted .*nothing was loaded/,
    );
  });
});
