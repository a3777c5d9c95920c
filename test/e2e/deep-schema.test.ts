// A tool whose input schema nests ~800 levels must not break the real Pi: as a direct tool (from the
// cache, registered before the first request) Pi still starts and its requests go out; the tool is
// declared with its schema cut to a bounded depth, and the rest of the catalog is untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { toolDeclaration, toolNames } from './harness/fake-llm.ts';
import {
  EXTENSION,
  FIXTURE_TOOLS,
  killMarked,
  stdioEntry,
  TOOL_SEARCH,
  uniqueMarker,
  writeWarmCache,
} from './harness/mcp.ts';
import { type PiRunResult, runPiPrint } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const DEPTH = 800;
const marker = uniqueMarker('deep');
let world: World;
let run: PiRunResult;

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { inner: schema } };
  return schema;
}

function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    deepest = Math.max(deepest, depth);
    if (typeof node === 'object' && node !== null)
      for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

beforeAll(async () => {
  await ensurePi();
  world = await createWorld({
    script: [{ text: 'first answer' }, { text: 'second answer' }],
    mcpJson: { mcpServers: { fx: stdioEntry(marker, [], { directTools: ['deep', 'echo'] }) } },
  });
  await writeWarmCache(world.dir, {
    fx: [
      FIXTURE_TOOLS.echo,
      { name: 'deep', description: 'A tool with a very deep schema.', inputSchema: nested(DEPTH) },
    ],
  });
  run = await runPiPrint({ dir: world.dir, extensions: [EXTENSION], prompt: ['Hello', 'Again'] });
}, ENSURE_PI_TIMEOUT_MS);

afterAll(async () => {
  await world?.cleanup();
  killMarked(marker);
});

describe('a schema nested ~800 levels in the real Pi', () => {
  it('Pi starts and every request goes out, with the deep tool declared at a bounded depth', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    expect(world.llm.requests).toHaveLength(2);
    for (const request of world.llm.requests) {
      expect(toolNames(request.body)).toEqual(expect.arrayContaining([TOOL_SEARCH, 'fx__echo', 'fx__deep']));
      const deep = toolDeclaration(request.body, 'fx__deep')!;
      expect(depthOf(deep.function.parameters)).toBeLessThan(100);
      expect(deep.function.description).toMatch(/schema .*too deep/i);
      // The other tools are declared as the server wrote them.
      expect(toolDeclaration(request.body, 'fx__echo')!.function.parameters).toMatchObject(
        FIXTURE_TOOLS.echo.inputSchema,
      );
    }
  });
});
