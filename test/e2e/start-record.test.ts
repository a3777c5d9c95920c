// The start record in the real Pi: an unchanged start declares the same ToolSearch on turn one from
// <agentDir>/mcp-start.json (and its tools still work); a changed config is seen on the next turn one.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, toolDeclaration } from './harness/fake-llm.ts';
import {
  EXTENSION,
  killMarked,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import { runPiPrint } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const SECRET = 'e2e-start-secret-4b1d';
const marker = uniqueMarker('start');
let world: World;

const config = (extra: Record<string, unknown> = {}) => ({
  mcpServers: { fx: stdioEntry(marker, [], { env: { FIXTURE_SECRET: SECRET }, ...extra }) },
});

/** One print-mode session; returns the requests it sent the model. */
async function run(prompt: string, ...steps: Parameters<World['llm']['push']>): Promise<ChatRequestBody[]> {
  const base = world.llm.requests.length;
  world.llm.push(...steps);
  const result = await runPiPrint({ dir: world.dir, extensions: [EXTENSION], prompt });
  expect(result.code, result.stderr).toBe(0);
  expect(world.llm.errors).toEqual([]);
  return world.llm.requests.slice(base).map((r) => r.body);
}

const searchDescription = (body: ChatRequestBody | undefined) =>
  body && toolDeclaration(body, TOOL_SEARCH)?.function.description;
const recordFile = () => join(world.dir.agentDir, 'mcp-start.json');

beforeAll(async () => {
  await ensurePi();
  world = await createWorld({ script: [], mcpJson: config() });
}, ENSURE_PI_TIMEOUT_MS);

afterAll(async () => {
  await world?.cleanup();
  killMarked(marker);
});

describe('the start record in the real Pi', () => {
  it('an unchanged start declares the same ToolSearch, and its tools work', async () => {
    // Cold: the server connects once to learn its tools (the cache changes, so the next start loads).
    await run(
      'Add',
      { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:fx__add' } }] },
      { text: 'done' },
    );
    const [loaded] = await run('Hi', { text: 'hello' });
    expect(searchDescription(loaded)).toMatch(/\bfx \(\d+\)/);
    const saved = readFileSync(recordFile(), 'utf8');

    const [remembered, afterSearch, afterCall] = await run(
      'Add 2 and 3',
      { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:fx__add' } }] },
      { toolCalls: [{ id: 'call_add', name: 'fx__add', arguments: { a: 2, b: 3 } }] },
      { text: '5' },
    );
    expect(searchDescription(remembered)).toBe(searchDescription(loaded));
    expect(toolResultFor(afterSearch!, 'call_search')).toMatch(/fx__add/);
    expect(toolResultFor(afterCall!, 'call_add')).toMatch(/5/);

    // A start that loaded would have saved its record again: this one came from the record.
    const record = readFileSync(recordFile(), 'utf8');
    expect(record).toBe(saved);
    const descriptions = Object.values(JSON.parse(record).records).map(
      (r) => (r as { description: string }).description,
    );
    expect(descriptions).toContain(searchDescription(loaded));
    expect(record).not.toContain(SECRET);
  });

  it('a changed config is on the next turn one', async () => {
    writeFileSync(
      join(world.dir.agentDir, 'mcp.json'),
      JSON.stringify(config({ description: 'Arithmetic for the start-record test' })),
    );
    const [changed] = await run('Hi', { text: 'hello' });
    expect(searchDescription(changed)).toMatch(/Arithmetic for the start-record test/);
    const [again] = await run('Hi', { text: 'hello' });
    expect(searchDescription(again)).toBe(searchDescription(changed));
  });
});
