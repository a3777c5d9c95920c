// Elicitation in the real Pi: server-everything asks for a form during a tool call; Pi's RPC mode
// turns our dialogs into extension_ui_request records that the test answers like a client UI would.
// In print mode (no UI) the model reads why nobody could be asked.
import { resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, TOOL_SEARCH, toolResultFor } from './harness/mcp.ts';
import { type PiRecord, runPiJson, startPiRpc, type UiAnswer } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const everythingBin = resolve(import.meta.dirname, '../../node_modules/.bin/mcp-server-everything');
const TOOL = 'everything__trigger-elicitation-request';

let world: World | undefined;
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const script = [
  { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: `select:${TOOL}` } }] },
  { toolCalls: [{ id: 'call_elicit', name: TOOL, arguments: {} }] },
  { text: 'done' },
];

/** A user at an RPC client: answers, keeps defaults; the name field is required. */
function answer(request: PiRecord): UiAnswer {
  const title = String(request.title);
  if (request.method === 'select') {
    if (title.includes('asks:')) return { value: 'Answer' };
    if (title.startsWith('Boolean')) return { value: 'Yes' };
    const options = request.options as string[];
    return { value: options.find((o) => o.endsWith('(default)')) ?? options[0]! };
  }
  if (title.startsWith('String —')) return { value: 'Grace Hopper' };
  return { value: '' };
}

describe('elicitation in the real Pi', () => {
  it('RPC mode: the form is asked through extension_ui_request dialogs and the answer reaches the server', async () => {
    world = await createWorld({
      mcpJson: {
        mcpServers: { everything: { command: everythingBin, args: ['stdio'], lifecycle: 'eager' } },
      },
      script,
    });
    const rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION], onDialog: answer });
    try {
      await rpc.promptAndWait('Ask me for my details', { timeoutMs: 120_000 });
    } finally {
      await rpc.close();
    }
    expect(world.llm.errors).toEqual([]);
    const dialogs = rpc.records.filter(
      (r) => r.type === 'extension_ui_request' && ['select', 'input'].includes(r.method),
    );
    expect(dialogs[0]).toMatchObject({
      method: 'select',
      title: 'MCP server "everything" asks: Please provide inputs for the following fields:',
      options: ['Answer', 'Decline'],
    });
    const result = toolResultFor(world.llm.requests[2]!.body, 'call_elicit') ?? '';
    expect(result).toContain('User provided the requested information');
    expect(result).toContain('- Name: Grace Hopper');
    expect(result).toContain('- Agreed to terms: true');
    expect(result).toContain('- Favorite Integer: 42');
  });

  it('print mode has no UI: the model is told the user could not be asked', async () => {
    world = await createWorld({
      mcpJson: {
        mcpServers: { everything: { command: everythingBin, args: ['stdio'], lifecycle: 'eager' } },
      },
      script,
    });
    const run = await runPiJson({ dir: world.dir, extensions: [EXTENSION], prompt: 'Ask me for my details' });
    expect(run.code, run.stderr).toBe(0);
    const result = toolResultFor(world.llm.requests[2]!.body, 'call_elicit') ?? '';
    expect(result).toMatch(/without an interactive UI \((json|print) mode\)/);
  });
});
