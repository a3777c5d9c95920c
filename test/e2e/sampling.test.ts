// Sampling in the real Pi: server-everything asks our client for a completion during a tool call; the
// user approves it in an RPC dialog and Pi's own model (the scripted fake) answers within the
// requested token limit.
import { resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, messageText } from './harness/fake-llm.ts';
import { EXTENSION, TOOL_SEARCH, toolResultFor } from './harness/mcp.ts';
import { runPiJson, startPiRpc } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const everythingBin = resolve(import.meta.dirname, '../../node_modules/.bin/mcp-server-everything');
const TOOL = 'everything__trigger-sampling-request';

let world: World | undefined;
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe('sampling in the real Pi', () => {
  it("runs on Pi's model after the user allows it; maxTokens and the system prompt are passed on", async () => {
    let samplingBody: ChatRequestBody | undefined;
    world = await createWorld({
      mcpJson: {
        mcpServers: { everything: { command: everythingBin, args: ['stdio'], lifecycle: 'eager' } },
      },
      script: [
        { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: `select:${TOOL}` } }] },
        { toolCalls: [{ id: 'call_sample', name: TOOL, arguments: { prompt: 'Say hi', maxTokens: 42 } }] },
        (body) => {
          samplingBody = body;
          return { text: 'Hi from the model' };
        },
        { text: 'done' },
      ],
    });
    const rpc = await startPiRpc({
      dir: world.dir,
      extensions: [EXTENSION],
      onDialog: (request) =>
        String(request.title).includes('wants to use your model')
          ? { value: 'Allow for this session' }
          : undefined,
    });
    try {
      await rpc.promptAndWait('Sample something', { timeoutMs: 120_000 });
    } finally {
      await rpc.close();
    }
    expect(world.llm.errors).toEqual([]);
    expect(samplingBody).toBeDefined();
    expect(samplingBody!.max_completion_tokens).toBe(42);
    expect(samplingBody!.tools ?? []).toEqual([]);
    const texts = samplingBody!.messages.map((m) => `${m.role}: ${messageText(m.content)}`);
    expect(texts).toEqual([
      'system: You are a helpful test server.',
      'user: Resource trigger-sampling-request context: Say hi',
    ]);
    const approval = rpc.records.find((r) => r.type === 'extension_ui_request' && r.method === 'select');
    expect(approval?.title).toMatch(/^MCP server "everything" wants to use your model fake\/fake-model/);
    const result = toolResultFor(world.llm.requests[3]!.body, 'call_sample') ?? '';
    expect(result).toContain('Hi from the model');
    expect(result).toContain('"model": "fake/fake-model"');
  });

  it('settings.samplingAutoApprove: JSON mode (no UI) samples without asking', async () => {
    world = await createWorld({
      mcpJson: {
        settings: { samplingAutoApprove: true },
        mcpServers: { everything: { command: everythingBin, args: ['stdio'], lifecycle: 'eager' } },
      },
      script: [
        { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: `select:${TOOL}` } }] },
        { toolCalls: [{ id: 'call_sample', name: TOOL, arguments: { prompt: 'Say hi', maxTokens: 42 } }] },
        { text: 'Hi without a dialog' },
        { text: 'done' },
      ],
    });
    const run = await runPiJson({ dir: world.dir, extensions: [EXTENSION], prompt: 'Sample something' });
    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const result = toolResultFor(world.llm.requests[3]!.body, 'call_sample') ?? '';
    expect(result).toContain('Hi without a dialog');
  }, 180_000);
});
