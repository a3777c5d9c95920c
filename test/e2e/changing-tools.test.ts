// A server whose tools change while Pi runs: the changed schema reaches the model's next request under
// the same name, the vanished tool leaves it, and ToolSearch's description stays byte-identical.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { type ChatRequestBody, toolDeclaration, toolNames } from './harness/fake-llm.ts';
import {
  EXTENSION,
  killMarked,
  stdioEntry,
  TOOL_SEARCH,
  toolResultFor,
  uniqueMarker,
} from './harness/mcp.ts';
import { startPiRpc } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let world: World | undefined;
let marker = '';
beforeAll(ensurePi, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
  killMarked(marker);
});

const declared = (body: ChatRequestBody, name: string) => toolDeclaration(body, name)?.function;

describe('tools that change under a running session', () => {
  it('tools/list_changed: the next request declares the new schema under the same name and drops the vanished tool', async () => {
    marker = uniqueMarker('reshape');
    world = await createWorld({
      mcpJson: { mcpServers: { fx: stdioEntry(marker, ['--list-changed']) } },
      script: [
        {
          toolCalls: [
            {
              id: 'call_search',
              name: TOOL_SEARCH,
              arguments: { query: 'select:fx__reshape,fx__echo,fx__environment' },
            },
          ],
        },
        { toolCalls: [{ id: 'call_reshape', name: 'fx__reshape', arguments: {} }] },
        { text: 'reshaped' },
        { toolCalls: [{ id: 'call_echo', name: 'fx__echo', arguments: { text: 'hi', volume: 'loud' } }] },
        { text: 'done' },
      ],
    });
    const rpc = await startPiRpc({ dir: world.dir, extensions: [EXTENSION] });
    try {
      await rpc.promptAndWait('Reshape the fixture server', { timeoutMs: 120_000 });
      // The refreshed list is registered once /mcp tools shows it (the list_changed is handled in the background).
      const deadline = Date.now() + 60_000;
      let listing = '';
      do {
        const out = await rpc.runCommand('/mcp tools fx');
        listing = out.notifications.map((n) => n.message).join('\n');
      } while (listing.includes('fx__environment') && Date.now() < deadline);
      expect(listing).toContain('fx__echo');
      expect(listing).not.toContain('fx__environment');
      await rpc.promptAndWait('Echo hi, loudly', { timeoutMs: 120_000 });
    } finally {
      await rpc.close();
    }

    expect(world.llm.errors).toEqual([]);
    const bodies = world.llm.requests.map((r) => r.body);
    expect(bodies).toHaveLength(5);
    const before = bodies[1]!;
    const after = bodies[3]!;
    expect(declared(before, 'fx__echo')).toMatchObject({
      description: 'Echoes the text back.',
      parameters: { required: ['text'] },
    });
    expect(toolNames(before)).toContain('fx__environment');
    expect(declared(after, 'fx__echo')).toMatchObject({
      description: 'Echoes the text back at the given volume.',
      parameters: { required: ['text', 'volume'], properties: { volume: { enum: ['quiet', 'loud'] } } },
    });
    expect(toolNames(after)).not.toContain('fx__environment');
    expect(toolResultFor(bodies[4]!, 'call_echo')).toBe('HI');
    const searchDescriptions = new Set(bodies.map((b) => declared(b, TOOL_SEARCH)?.description));
    expect(searchDescriptions.size).toBe(1);
  });
});
