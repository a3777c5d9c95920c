// Servers that misbehave the way real ones do, in the real Pi (JSON mode, scripted model): a slow
// tools/list does not hold ToolSearch, a Streamable HTTP call whose stream is cut fails at once, a
// list_changed storm costs one listing and the last schema reaches the model, a progress flood reaches
// Pi throttled, and one tool of a 3,000-tool server loads and runs.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type HttpFixture, startHttpFixture } from '../fixtures/servers/spawn.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, toolDeclaration, toolNames } from './harness/fake-llm.ts';
import {
  EXTENSION,
  killMarked,
  lastToolResult,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import { type PiRecord, runPiJson } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const PROBE = 'test/e2e/fixtures/tool-count-probe.ts';

let world: World | undefined;
let http: HttpFixture | undefined;
let marker = '';
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  await http?.stop();
  http = undefined;
  killMarked(marker);
});

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({
  toolCalls: [{ id, name, arguments: args }],
});
const toolEnd = (events: PiRecord[], id: string) =>
  events.find((e) => e.type === 'tool_execution_end' && e.toolCallId === id);
const lineCount = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;

describe('servers that misbehave, in the real Pi', () => {
  it('a server still listing its tools: ToolSearch answers at once naming it, and finds its tools once they arrive', async () => {
    marker = uniqueMarker('slow-list');
    let gate = '';
    world = await createWorld({
      script: [
        call('search_1', TOOL_SEARCH, { query: 'echo text back' }),
        (body) => {
          // The first answer is in; only now may the slow server finish its listing.
          expect(lastToolResult(body)).toMatch(/"slow" is still starting/);
          rmSync(gate, { force: true });
          return call('search_2', TOOL_SEARCH, { query: 'select:slow__echo' });
        },
        call('echo_1', 'slow__echo', { text: 'hello late' }),
        { text: 'done' },
      ],
    });
    gate = world.file('list-gate');
    writeFileSync(gate, '');
    writeFileSync(
      `${world.dir.agentDir}/mcp.json`,
      JSON.stringify({
        mcpServers: {
          slow: stdioEntry(marker, ['--list-wait-while', gate], { startupTimeoutMs: 120_000 }),
        },
      }),
    );
    const run = await runPiJson({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Echo something',
      timeoutMs: 45_000,
    });
    expect(run.timedOut).toBe(false);
    expect(world.llm.errors).toEqual([]);
    const bodies = world.llm.requests.map((r) => r.body);
    expect(bodies).toHaveLength(4);
    expect(toolResultFor(bodies[1]!, 'search_1')).toMatch(/search again in a moment/);
    expect(toolResultFor(bodies[2]!, 'search_2')).toMatch(/slow__echo/);
    expect(toolNames(bodies[2]!)).toContain('slow__echo');
    expect(toolResultFor(bodies[3]!, 'echo_1')).toBe('hello late');
    const descriptions = new Set(bodies.map((b) => toolDeclaration(b, TOOL_SEARCH)?.function.description));
    expect(descriptions.size).toBe(1);
  }, 60_000);

  it('a Streamable HTTP call whose stream is cut mid-call fails at once: the connection dropped, the call may have run', async () => {
    http = await startHttpFixture(['--unruly-tools']);
    world = await createWorld({
      mcpJson: { mcpServers: { web: { url: http.url, requestTimeoutMs: 120_000 } } },
      script: [
        call('search', TOOL_SEARCH, { query: 'select:web__cut_stream,web__echo' }),
        call('cut', 'web__cut_stream'),
        call('echo', 'web__echo', { text: 'after the drop' }),
        { text: 'done' },
      ],
    });
    const run = await runPiJson({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Cut it',
      timeoutMs: 45_000,
    });
    expect(run.timedOut).toBe(false);
    expect(world.llm.errors).toEqual([]);
    const bodies = world.llm.requests.map((r) => r.body);
    expect(bodies).toHaveLength(4);
    const cut = toolResultFor(bodies[2]!, 'cut');
    expect(cut).toMatch(/connection dropped mid-call/);
    expect(cut).toMatch(/may have run/);
    expect(cut).not.toMatch(/busy/);
    expect(toolEnd(run.events, 'cut')?.isError).toBe(true);
    expect(toolResultFor(bodies[3]!, 'echo')).toBe('after the drop');
  }, 60_000);

  it('a list_changed storm: one listing for the burst, and the last schema reaches the model', async () => {
    marker = uniqueMarker('storm');
    let lists = '';
    let listedBefore = 0;
    const declaresLast = (body: ChatRequestBody) =>
      JSON.stringify(toolDeclaration(body, 'fx__storm_target')?.function.parameters ?? {}).includes('"v200"');
    world = await createWorld({
      script: (body, index) => {
        if (index === 0) return call('search', TOOL_SEARCH, { query: 'select:fx__storm,fx__storm_target' });
        if (index === 1) {
          listedBefore = lineCount(lists);
          return call('storm', 'fx__storm', { count: 200 });
        }
        if (declaresLast(body) || index > 12) return { text: 'done' };
        // The burst is read once it pauses: wait for that listing, then look again.
        return vi
          .waitFor(() => expect(lineCount(lists)).toBeGreaterThan(listedBefore), {
            timeout: 15_000,
            interval: 20,
          })
          .then(() => call(`look_${index}`, TOOL_SEARCH, { query: 'select:fx__storm_target' }));
      },
    });
    lists = world.file('lists.txt');
    writeFileSync(
      `${world.dir.agentDir}/mcp.json`,
      JSON.stringify({
        mcpServers: { fx: stdioEntry(marker, ['--unruly-tools', '--list-changed', '--lists-file', lists]) },
      }),
    );
    const run = await runPiJson({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Storm',
      timeoutMs: 45_000,
    });
    expect(run.timedOut).toBe(false);
    expect(world.llm.errors).toEqual([]);
    const bodies = world.llm.requests.map((r) => r.body);
    expect(toolResultFor(bodies[2]!, 'storm')).toContain('sent 200 list_changed');
    expect(declaresLast(bodies.at(-1)!)).toBe(true);
    expect(toolDeclaration(bodies.at(-1)!, 'fx__storm_target')?.function.description).toBe(
      'Storm target at version 200.',
    );
    const listings = lineCount(lists) - listedBefore;
    expect(listings).toBeGreaterThanOrEqual(1);
    // One per burst; a storm the machine's load splits with pauses (or spreads past 1 s) costs a few.
    expect(listings).toBeLessThanOrEqual(10);
  }, 60_000);

  it('a progress flood reaches Pi throttled: a few updates, the last one the final progress', async () => {
    marker = uniqueMarker('flood');
    world = await createWorld({
      mcpJson: { mcpServers: { fx: stdioEntry(marker, ['--unruly-tools']) } },
      script: [
        call('search', TOOL_SEARCH, { query: 'select:fx__flood' }),
        call('flood', 'fx__flood', { count: 20_000 }),
        { text: 'done' },
      ],
    });
    const run = await runPiJson({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Flood',
      timeoutMs: 45_000,
    });
    expect(run.timedOut).toBe(false);
    expect(world.llm.errors).toEqual([]);
    const updates = run.events.filter((e) => e.type === 'tool_execution_update' && e.toolCallId === 'flood');
    expect(updates.length).toBeGreaterThanOrEqual(1);
    // Four a second at most, however long the flood takes on a loaded machine.
    expect(updates.length).toBeLessThan(200);
    expect(updates.at(-1)?.partialResult?.details).toMatchObject({
      progress: { progress: 20_000, total: 20_000 },
    });
    expect(toolResultFor(world.llm.requests[2]!.body, 'flood')).toBe('flooded 20000 progress notifications');
  }, 60_000);

  it('one tool of a 3,000-tool server: ToolSearch loads it, Pi is given that one (not 3,000), and the call runs', async () => {
    marker = uniqueMarker('huge');
    world = await createWorld({
      mcpJson: { mcpServers: { big: stdioEntry(marker, ['--many-tools', '3000']) } },
      script: [
        call('search', TOOL_SEARCH, { query: 'select:big__gen_1234' }),
        call('gen', 'big__gen_1234', { id: 'x' }),
        { text: 'done' },
      ],
    });
    const probe = world.file('tools.jsonl');
    const run = await runPiJson({
      dir: world.dir,
      extensions: [EXTENSION, PROBE],
      env: { TOOL_COUNT_PROBE: probe },
      prompt: 'Huge',
      timeoutMs: 45_000,
    });
    expect(run.timedOut).toBe(false);
    expect(world.llm.errors).toEqual([]);
    const bodies = world.llm.requests.map((r) => r.body);
    expect(bodies).toHaveLength(3);
    // What Pi has registered after each turn: of the 3,000 tools only the one the model loaded.
    const turns = readFileSync(probe, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as string[]).filter((name) => name.startsWith('big__')));
    expect(turns.length).toBeGreaterThanOrEqual(2);
    for (const names of turns.slice(1)) expect(names).toEqual(['big__gen_1234']);
    expect(toolNames(bodies[1]!).filter((n) => n.startsWith('big__'))).toEqual(['big__gen_1234']);
    expect(toolResultFor(bodies[2]!, 'gen')).toBe('ran gen_1234');
  }, 60_000);
});
