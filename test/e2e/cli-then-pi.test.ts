// The CLI run beside Pi on the same agent dir must not take tools away from the next Pi session:
// it declares what Pi declares, so the listing it caches is the one Pi would make.
import { resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCliBin } from '../support/output-channels.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, TOOL_SEARCH, toolResultFor } from './harness/mcp.ts';
import { runPiJson } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const EVERYTHING_ENTRY = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const TOOL = 'everything__trigger-elicitation-request';

let world: World | undefined;
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe('a Pi session after a CLI run', () => {
  it('still finds every tool of server-everything (the CLI cached the same listing Pi makes)', async () => {
    world = await createWorld({
      mcpJson: { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_ENTRY] } } },
      script: [
        { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: `select:${TOOL}` } }] },
        { text: 'done' },
      ],
    });
    const { home, agentDir, projectDir } = world.dir;
    const cli = await runCliBin(['tools', 'everything'], { cwd: projectDir, home, agentDir });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(TOOL);
    const run = await runPiJson({ dir: world.dir, extensions: [EXTENSION], prompt: 'Load the form tool' });
    expect(run.code, run.stderr).toBe(0);
    const answer = toolResultFor(world.llm.requests[1]!.body, 'call_search') ?? '';
    expect(answer).not.toMatch(/Unknown tool names/);
    expect(answer).toContain(TOOL);
  });
});
