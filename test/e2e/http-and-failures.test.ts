// Our extension in the real Pi against an HTTP server (Streamable HTTP on 127.0.0.1), a server that
// crashes on start (backoff) and one that answers 401 (needs auth): the model always gets an answer
// that says what happened and what to do, and the tool error flag is set where a call failed.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFixture, startHttpFixture } from '../fixtures/servers/spawn.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { toolNames } from './harness/fake-llm.ts';
import {
  addedTools,
  BUILTINS,
  EXTENSION,
  FIXTURE_TOOLS,
  killMarked,
  loadedByToolSearch,
  stdioEntry,
  TOOL_SEARCH,
  threeRequests,
  toolResultFor,
  uniqueMarker,
  writeWarmCache,
} from './harness/mcp.ts';
import { type PiRecord, runPiJson } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let web: HttpFixture;
let locked: HttpFixture;
let world: World | undefined;
const marker = uniqueMarker('failures');

beforeAll(async () => {
  await ensurePi();
  [web, locked] = await Promise.all([
    startHttpFixture(),
    startHttpFixture(['--require-token', 'right-token']),
  ]);
}, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  killMarked(marker);
});
afterAll(async () => {
  await Promise.all([web?.stop(), locked?.stop()]);
});

function servers(): Record<string, unknown> {
  return {
    web: { url: web.url },
    broken: stdioEntry(marker, ['--crash-on-start']),
    // No token configured: the server answers 401.
    locked: { url: locked.url },
  };
}

function toolEnd(events: PiRecord[], toolCallId: string): PiRecord | undefined {
  return events.find((e) => e.type === 'tool_execution_end' && e.toolCallId === toolCallId);
}

/** What the model must learn about the crashing server: what failed, why, and what to do. */
function expectBackoffAnswer(text: string | undefined): void {
  expect(text).toMatch(/^MCP server "broken" failed to connect: /);
  expect(text).toContain('exited with code 3');
  expect(text).toContain('fatal: fixture refuses to start');
  expect(text).toMatch(/can be tried again in \d+ s; \/mcp reconnect broken tries now\.$/);
}
const AUTH_ANSWER = 'MCP server "locked" needs authentication. Run /mcp-auth locked, then try again.';

describe('HTTP, backoff and auth in the real Pi', () => {
  it('ToolSearch loads tools of the HTTP server and tells the model why the others have none', async () => {
    world = await createWorld({
      mcpJson: { mcpServers: servers() },
      script: [
        { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:web__add' } }] },
        { toolCalls: [{ id: 'call_add', name: 'web__add', arguments: { a: 1, b: 2 } }] },
        { text: 'three' },
      ],
    });
    const run = await runPiJson({ dir: world.dir, extensions: [EXTENSION], prompt: 'Add 1 and 2' });

    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const [first, second, third] = threeRequests(world.llm);
    expect(toolNames(first)).toEqual([...BUILTINS, TOOL_SEARCH]);
    const answer = toolResultFor(second, 'call_search')!;
    expect(loadedByToolSearch(answer)).toEqual(['web__add']);
    const notes = answer.split('\n').filter((l) => l.startsWith('Note: '));
    expect(notes).toHaveLength(2);
    // Said for the model, once: why the tools are missing and what to tell the user, no slash commands.
    const broken = notes.find((n) => n.includes('"broken"'));
    expect(broken).toMatch(/^Note: MCP server "broken" failed to connect: .*exited with code 3/);
    expect(broken).toContain('fatal: fixture refuses to start');
    expect(broken).toMatch(/tell the user that "broken" is failing\.$/);
    expect(notes.find((n) => n.includes('"locked"'))).toMatch(
      /^Note: MCP server "locked" needs the user to sign in, so its tools are not listed\. .*\/mcp-auth locked\.$/,
    );
    expect(notes.join('\n')).not.toMatch(/\/mcp reconnect/);
    expect(addedTools(second, first)).toEqual(['web__add']);

    // The call went over Streamable HTTP to the fixture and its answer reached the model.
    expect(toolResultFor(third, 'call_add')).toBe('3');
    expect(toolEnd(run.events, 'call_add')).toMatchObject({ toolName: 'web__add', isError: false });
    expect(web.requests()).toContainEqual(expect.stringMatching(/^POST \/mcp tools\/call$/));
    // The 401 server was asked and refused; it never saw an authorized request.
    expect(locked.requests()).toEqual([]);
  });

  it('with tools known from the cache, calls to a crashing and an unauthorized server answer with actionable errors', async () => {
    world = await createWorld({
      mcpJson: { mcpServers: servers() },
      script: [
        {
          toolCalls: [
            {
              id: 'call_select',
              name: TOOL_SEARCH,
              arguments: { query: 'select:broken__echo,locked__echo' },
            },
          ],
        },
        {
          toolCalls: [
            { id: 'call_broken', name: 'broken__echo', arguments: { text: 'hi' } },
            { id: 'call_locked', name: 'locked__echo', arguments: { text: 'hi' } },
          ],
        },
        { text: 'Both servers are unavailable.' },
      ],
    });
    // Yesterday both servers worked and the cache remembers their tools.
    await writeWarmCache(world.dir, {
      web: [FIXTURE_TOOLS.echo, FIXTURE_TOOLS.add],
      broken: [FIXTURE_TOOLS.echo],
      locked: [FIXTURE_TOOLS.echo],
    });
    const run = await runPiJson({ dir: world.dir, extensions: [EXTENSION], prompt: 'Echo hi on both' });

    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const [, second, third] = threeRequests(world.llm);
    // Loading from the cache needs no connection, so there is nothing to report yet.
    expect(toolResultFor(second, 'call_select')).not.toContain('Note:');
    expect(loadedByToolSearch(toolResultFor(second, 'call_select')!)).toEqual([
      'broken__echo',
      'locked__echo',
    ]);

    expectBackoffAnswer(toolResultFor(third, 'call_broken'));
    expect(toolResultFor(third, 'call_locked')).toBe(AUTH_ANSWER);
    expect(toolEnd(run.events, 'call_broken')).toMatchObject({ toolName: 'broken__echo', isError: true });
    expect(toolEnd(run.events, 'call_locked')).toMatchObject({ toolName: 'locked__echo', isError: true });
  });
});
