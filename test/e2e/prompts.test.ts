// MCP prompts as slash commands in the real Pi (RPC): the command is listed, running it sends the
// prompt's messages to the model as the user's message.
import { resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { messageText } from './harness/fake-llm.ts';
import { EXTENSION } from './harness/mcp.ts';
import { startPiRpc } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const everythingBin = resolve(import.meta.dirname, '../../node_modules/.bin/mcp-server-everything');

let world: World | undefined;
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe('prompts in the real Pi', () => {
  it('/mcp__everything__args-prompt is a Pi command whose prompt reaches the model as the user message', async () => {
    world = await createWorld({
      mcpJson: {
        mcpServers: { everything: { command: everythingBin, args: ['stdio'], lifecycle: 'eager' } },
      },
      script: [{ text: 'Sunny.' }],
    });
    const rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION] });
    try {
      // The eager server's prompts are registered once it has connected.
      const deadline = Date.now() + 60_000;
      let names: string[] = [];
      do {
        const commands = await rpc.send({ type: 'get_commands' });
        names = (commands.data.commands as Array<{ name: string }>).map((c) => c.name);
      } while (!names.includes('mcp__everything__args-prompt') && Date.now() < deadline);
      expect(names).toContain('mcp__everything__args-prompt');

      const since = rpc.records.length;
      const ran = await rpc.runCommand('/mcp__everything__args-prompt city=Paris state="Île-de-France"');
      expect(ran.response.success).toBe(true);
      await rpc.waitForRecord((r) => r.type === 'agent_settled', { since, timeoutMs: 120_000 });
    } finally {
      await rpc.close();
    }
    expect(world.llm.errors).toEqual([]);
    const body = world.llm.requests[0]!.body;
    const user = body.messages.filter((m) => m.role === 'user').at(-1);
    expect(messageText(user?.content)).toBe("What's weather in Paris, Île-de-France?");
  });
});
