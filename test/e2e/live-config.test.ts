// A live config in the real Pi (issue 37, DESIGN.md rule 14): the user's mcp.json is edited while a
// print-mode session runs, and the session follows at the next turn without /reload. The scripted
// model makes the edits itself (its step functions run between Pi's turns), so the edits and the turns
// are ordered by the conversation, not by sleeps. Pi runs once per test, with the shared host on (the
// default) and off.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, toolDeclaration } from './harness/fake-llm.ts';
import {
  EXTENSION,
  killMarked,
  lastToolResult,
  loadedByToolSearch,
  markedProcesses,
  stdioEntry,
  TOOL_SEARCH,
  uniqueMarker,
} from './harness/mcp.ts';
import { runPiPrint } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
const markers: string[] = [];
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  killMarked(...markers.splice(0));
});

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  toolCalls: [{ id, name, arguments: args }],
});

/** Resolves once no process carries `marker` (the removed server's process has ended), or says it is still there. */
async function processesEnd(marker: string, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = markedProcesses(marker).filter((p) => p.state !== 'Z').length;
    if (left === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const description = (body: ChatRequestBody) => toolDeclaration(body, TOOL_SEARCH)?.function.description;

describe.each([
  { host: 'the shared host', settings: {} },
  { host: 'servers in the session', settings: { sharedHost: false } },
])('a live config in the real Pi, print mode, with $host', ({ settings }) => {
  it('adds, removes, survives a bad save: (a) select: loads the added server, (b) its tool answers, (c) the removed one is gone with its process, (d) Pi finishes', async () => {
    const alpha = uniqueMarker('alpha');
    const beta = uniqueMarker('beta');
    markers.push(alpha, beta);
    const mcp = (servers: Record<string, unknown>) => ({ settings, mcpServers: servers });
    let mcpFile = '';
    const save = (content: unknown) =>
      writeFileSync(mcpFile, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    const seen: Record<string, number> = {};
    world = await createWorld({
      mcpJson: mcp({ alpha: stdioEntry(alpha) }),
      script: [
        call('c0', TOOL_SEARCH, { query: 'select:alpha__echo' }),
        call('c1', 'alpha__echo', { text: 'one' }),
        // The user adds beta while the model thinks.
        () => {
          save(mcp({ alpha: stdioEntry(alpha), beta: stdioEntry(beta) }));
          return call('c2', 'alpha__echo', { text: 'two' });
        },
        call('c3', TOOL_SEARCH, { query: 'select:beta__echo' }),
        (body) => {
          seen.betaLoaded = loadedByToolSearch(lastToolResult(body)).includes('beta__echo') ? 1 : 0;
          return call('c4', 'beta__echo', { text: 'from beta' });
        },
        // The user removes alpha.
        () => {
          seen.alphaAlive = markedProcesses(alpha).length;
          save(mcp({ beta: stdioEntry(beta) }));
          return call('c5', 'beta__echo', { text: 'three' });
        },
        call('c6', 'alpha__echo', { text: 'gone?' }),
        // A bad save: not JSON.
        async () => {
          seen.alphaLeft = await processesEnd(alpha);
          save('{ "mcpServers": { "beta": ');
          return call('c7', 'beta__echo', { text: 'still here' });
        },
        { text: 'done' },
      ],
    });
    mcpFile = join(world.dir.agentDir, 'mcp.json');

    const run = await runPiPrint({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Use the MCP tools',
      timeoutMs: 60_000,
    });

    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const bodies = world.llm.requests.map((r) => r.body);
    const result = (i: number) => lastToolResult(bodies[i]!);
    expect(result(2)).toBe('one');
    expect(result(3)).toBe('two');
    // (a) the server added mid-session is loaded by select: on the next turn
    expect(seen.betaLoaded, result(4)).toBe(1);
    // (b) its tool answers
    expect(result(5)).toBe('from beta');
    expect(seen.alphaAlive).toBeGreaterThan(0);
    // (c) the removed server's tool reaches no server, and its process has ended
    expect(result(7)).toMatch(/alpha.*(removed from the config|not found)/);
    expect(seen.alphaLeft).toBe(0);
    // (d) after an invalid save, the remaining server still answers, and Pi finishes
    expect(result(8)).toBe('still here');
    expect(run.stdout).toContain('done');
    // ToolSearch's description changed between turns, and only when the servers changed.
    expect(description(bodies[1]!)).toBe(description(bodies[0]!));
    expect(description(bodies[3]!)).toContain('beta');
    expect(description(bodies[0]!)).not.toContain('beta');
    expect(description(bodies[8]!)).not.toContain('alpha');
    expect(description(bodies[8]!)).toBe(description(bodies[7]!));
  }, 90_000);
});
