// Roots in the real Pi with the real @modelcontextprotocol/server-filesystem, which replaces the
// folders in its args with the client's roots: by default we send none (as pi-mcp-adapter), so the
// folder the user configured stays allowed; `roots: true` gives a server Pi's working directory.
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, TOOL_SEARCH, toolResultFor } from './harness/mcp.ts';
import { runPiJson } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const FILESYSTEM_ENTRY = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);
const EVERYTHING_ENTRY = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const TOOL = 'fs__list_allowed_directories';

let world: World | undefined;
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const script = [
  { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: `select:${TOOL}` } }] },
  { toolCalls: [{ id: 'call_list', name: TOOL, arguments: {} }] },
  { text: 'done' },
];

async function allowedDirectories(server: Record<string, unknown>, folder: string): Promise<string[]> {
  world = await createWorld({
    mcpJson: {
      mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM_ENTRY, folder], ...server } },
    },
    script,
  });
  const run = await runPiJson({
    dir: world.dir,
    extensions: [EXTENSION],
    prompt: 'Which folders may you read?',
  });
  expect(run.code, run.stderr).toBe(0);
  expect(world.llm.errors).toEqual([]);
  const result = toolResultFor(world.llm.requests[2]!.body, 'call_list') ?? '';
  return result.split('\n').filter((line) => line.startsWith('/'));
}

describe('roots in the real Pi', () => {
  it('a filesystem server configured with a folder other than the cwd lists that folder', async () => {
    const folder = realpathSync(join(import.meta.dirname, '../fixtures'));
    expect(await allowedDirectories({}, folder)).toEqual([folder]);
  });

  it('roots: true gives the server Pi’s working directory', async () => {
    // server-everything asks for the roots when the tool runs (server-filesystem fetches them in the
    // background after initialize, which a call right after connecting may overtake).
    world = await createWorld({
      mcpJson: {
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_ENTRY], roots: true } },
      },
      script: [
        {
          toolCalls: [
            {
              id: 'call_search',
              name: TOOL_SEARCH,
              arguments: { query: 'select:everything__get-roots-list' },
            },
          ],
        },
        { toolCalls: [{ id: 'call_roots', name: 'everything__get-roots-list', arguments: {} }] },
        { text: 'done' },
      ],
    });
    const run = await runPiJson({ dir: world.dir, extensions: [EXTENSION], prompt: 'Which roots?' });
    expect(run.code, run.stderr).toBe(0);
    const result = toolResultFor(world.llm.requests[2]!.body, 'call_roots') ?? '';
    expect(result).toContain(pathToFileURL(world.dir.projectDir).href);
  });
});
