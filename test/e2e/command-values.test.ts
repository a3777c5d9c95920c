// A `!command` header from Pi's own docs' example shape, in the real Pi: the HTTP fixture refuses
// requests without the token the command prints; ToolSearch loads its tool and the call succeeds, and
// the printed token never reaches the model.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFixture, startHttpFixture } from '../fixtures/servers/spawn.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, loadedByToolSearch, TOOL_SEARCH, threeRequests, toolResultFor } from './harness/mcp.ts';
import { runPiJson } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const TOKEN = 'e2e-command-token-3c9a71';
let locked: HttpFixture;
let world: World | undefined;

beforeAll(async () => {
  await ensurePi();
  locked = await startHttpFixture(['--require-token', TOKEN]);
}, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});
afterAll(async () => {
  await locked?.stop();
});

describe('!command values in the real Pi', () => {
  it('a header that runs a command reaches the server, and its output stays out of the model', async () => {
    world = await createWorld({
      mcpJson: {
        mcpServers: { locked: { url: locked.url, headers: { Authorization: `!echo Bearer ${TOKEN}` } } },
      },
      script: [
        {
          toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:locked__echo' } }],
        },
        {
          toolCalls: [{ id: 'call_echo', name: 'locked__echo', arguments: { text: 'through the command' } }],
        },
        { text: 'done' },
      ],
    });
    const run = await runPiJson({ dir: world.dir, extensions: [EXTENSION], prompt: 'Echo through locked.' });

    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const requests = threeRequests(world.llm);
    expect(loadedByToolSearch(toolResultFor(requests[1], 'call_search')!)).toEqual(['locked__echo']);
    expect(toolResultFor(requests[2], 'call_echo')).toBe('through the command');
    expect(JSON.stringify(requests)).not.toContain(TOKEN);
  });
});
