// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} references.
// The metadata cache shared with the real pi-mcp-adapter 2.36.0 (from npm), both extensions running
// in the real Pi against the same fixture server and agent dir. The fixture appends a line to a file
// at every start, so "no server started" is counted, not guessed.
//   1. pi-mcp-adapter connects and writes mcp-cache.json; our extension then serves the tools from
//      that cache with no start; when we later connect and rewrite the entry, their fields stay.
//   2. Ours writes the cache; pi-mcp-adapter then finds the tool from it with no start.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_DIR, provisionAdapter } from '../../bench/support/provision.ts';
import { configHash } from '../../src/catalog/cache.ts';
import { loadConfig } from '../../src/config/load.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, toolDeclaration } from './harness/fake-llm.ts';
import {
  EXTENSION,
  killMarked,
  lastToolResult,
  loadedByToolSearch,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import { runPiPrint } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
let marker = '';

beforeAll(async () => {
  await Promise.all([ensurePi(), provisionAdapter()]);
}, ENSURE_PI_TIMEOUT_MS);

afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  killMarked(marker);
});

function startsIn(file: string): number {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

function writeConfig(w: World, config: unknown): void {
  writeFileSync(join(w.dir.agentDir, 'mcp.json'), JSON.stringify(config, null, 2));
}

function cacheEntry(w: World): Record<string, any> {
  return JSON.parse(readFileSync(join(w.dir.agentDir, 'mcp-cache.json'), 'utf8')).servers.fx;
}

/** Our hash of the world's fx entry, as our loader computes it. */
function ourHash(w: World): string {
  const config = loadConfig({
    agentDir: w.dir.agentDir,
    cwd: w.dir.projectDir,
    homeDir: w.dir.home,
    env: { ...w.dir.env },
    projectTrusted: false,
  });
  return configHash(config.servers.find((s) => s.name === 'fx')!);
}

/** The adapter's gateway: a search (its tool list comes from the cache or a connection). */
const adapterSearch = { toolCalls: [{ id: 'call_mcp', name: 'mcp', arguments: { search: 'echo' } }] };

describe('cache shared with the real pi-mcp-adapter 2.36.0', () => {
  it('reads the cache pi-mcp-adapter wrote without starting the server, and keeps its fields', async () => {
    marker = uniqueMarker('adapter-writes');
    world = await createWorld({ script: [adapterSearch, { text: 'adapter done' }] });
    const starts = world.file('starts.txt');
    // Env and a `${VAR}` in args: both hashes must read them the same way.
    const entry = stdioEntry(marker, ['--starts-file', starts, '--tag', '${FX_TAG}'], {
      env: { FX_MODE: 'test' },
    });
    const mcpJson = { mcpServers: { fx: entry } };
    writeConfig(world, mcpJson);
    world.dir.env.FX_TAG = 'tagged';

    const theirs = await runPiPrint({
      dir: world.dir,
      extensions: [ADAPTER_DIR],
      prompt: 'Find echo',
      timeoutMs: 60_000,
    });
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(startsIn(starts)).toBeGreaterThan(0);
    const written = cacheEntry(world);
    expect(written.tools.map((t: { name: string }) => t.name)).toContain('echo');
    expect(written.configHash).toBe(ourHash(world));

    // Our session: ToolSearch loads fx__echo from their cache; the server is not started.
    const before = startsIn(starts);
    world.llm.push(
      { toolCalls: [{ id: 'call_select', name: TOOL_SEARCH, arguments: { query: 'select:fx__echo' } }] },
      { text: 'ours done' },
    );
    const base = world.llm.requests.length;
    const ours = await runPiPrint({ dir: world.dir, extensions: [EXTENSION], prompt: 'Load echo' });
    expect(ours.code, ours.stderr).toBe(0);
    const [first, second] = world.llm.requests.slice(base).map((r) => r.body) as ChatRequestBody[];
    expect(toolDeclaration(first as ChatRequestBody, TOOL_SEARCH)?.function.description).toMatch(
      /\bfx \(\d+\)/,
    );
    expect(loadedByToolSearch(toolResultFor(second as ChatRequestBody, 'call_select') ?? '')).toEqual([
      'fx__echo',
    ]);
    expect(startsIn(starts)).toBe(before);

    // A call connects; our rewrite of the entry keeps the fields only pi-mcp-adapter writes.
    const extra = Object.keys(written).filter(
      (k) => !['configHash', 'tools', 'resources', 'cachedAt', 'serverInfo', 'instructions'].includes(k),
    );
    expect(extra).toContain('prompts');
    world.llm.push(
      { toolCalls: [{ id: 'call_echo', name: 'fx__echo', arguments: { text: 'hi' } }] },
      { text: 'called' },
    );
    writeConfig(world, { mcpServers: { fx: { ...entry, directTools: ['echo'] } } });
    const call = await runPiPrint({ dir: world.dir, extensions: [EXTENSION], prompt: 'Echo hi' });
    expect(call.code, call.stderr).toBe(0);
    expect(lastToolResult(world.llm.requests.at(-1)!.body)).toBe('hi');
    const rewritten = cacheEntry(world);
    expect(rewritten.cachedAt).toBeGreaterThan(written.cachedAt);
    for (const key of extra) expect(rewritten[key], key).toEqual(written[key]);
  }, 180_000);

  it('pi-mcp-adapter uses the cache our extension wrote without starting the server', async () => {
    marker = uniqueMarker('ours-writes');
    world = await createWorld({
      script: [
        { toolCalls: [{ id: 'call_select', name: TOOL_SEARCH, arguments: { query: 'select:fx__echo' } }] },
        { toolCalls: [{ id: 'call_echo', name: 'fx__echo', arguments: { text: 'warm' } }] },
        { text: 'ours done' },
      ],
    });
    const starts = world.file('starts.txt');
    writeConfig(world, { mcpServers: { fx: stdioEntry(marker, ['--starts-file', starts]) } });
    const ours = await runPiPrint({ dir: world.dir, extensions: [EXTENSION], prompt: 'Echo warm' });
    expect(ours.code, ours.stderr).toBe(0);
    expect(startsIn(starts)).toBe(1);
    const written = cacheEntry(world);

    world.llm.push(adapterSearch, { text: 'adapter done' });
    const base = world.llm.requests.length;
    const theirs = await runPiPrint({
      dir: world.dir,
      extensions: [ADAPTER_DIR],
      prompt: 'Find echo',
      timeoutMs: 60_000,
    });
    expect(theirs.code, theirs.stderr).toBe(0);
    const found = toolResultFor(world.llm.requests[base + 1]!.body, 'call_mcp') ?? '';
    expect(found).toMatch(/fx_echo/);
    expect(startsIn(starts)).toBe(1);
    expect(cacheEntry(world).configHash).toBe(written.configHash);
  }, 120_000);
});
