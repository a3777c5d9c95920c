import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/catalog/catalog.ts';
import { boundedSchema, MAX_SCHEMA_DEPTH } from '../../../src/catalog/schema-depth.ts';
import { definition } from '../../support/config.ts';

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string', enum: ['a'] };
  for (let i = 0; i < depth; i++)
    schema = { type: 'object', properties: { inner: schema }, required: ['inner'] };
  return schema;
}

function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

describe('boundedSchema', () => {
  it('keeps a shallow schema as it is (the same object)', () => {
    const schema = nested(10);
    expect(boundedSchema(schema)).toEqual({ schema, cut: false });
  });

  it('cuts a schema nested 10 000 levels without overflowing, to at most MAX_SCHEMA_DEPTH levels', () => {
    const { schema, cut } = boundedSchema(nested(10_000));
    expect(cut).toBe(true);
    expect(depthOf(schema)).toBeLessThanOrEqual(MAX_SCHEMA_DEPTH);
    expect(JSON.stringify(schema).startsWith('{"type":"object","properties":{"inner":{"type":"object"')).toBe(
      true,
    );
  });
});

describe('the catalog with a deep tool', () => {
  it('declares the tool with a cut schema, says so in its description and warns; other tools keep theirs', () => {
    const shallow = { type: 'object', properties: { text: { type: 'string' } } };
    const catalog = buildCatalog(
      [
        {
          definition: definition({ name: 'fx' }),
          tools: [
            { name: 'deep', description: 'Deep.', inputSchema: nested(800) },
            { name: 'echo', description: 'Echo.', inputSchema: shallow },
          ],
        },
      ],
      { toolPrefix: 'server' },
    );
    const deep = catalog.byName.get('fx__deep')!;
    expect(depthOf(deep.inputSchema)).toBeLessThanOrEqual(MAX_SCHEMA_DEPTH);
    expect(deep.description).toMatch(/^Deep\.\n\(Its input schema is too deep/);
    expect(catalog.warnings.join('\n')).toMatch(/fx: tool deep has an input schema nested deeper than/);
    expect(catalog.byName.get('fx__echo')!.inputSchema).toBe(shallow);
  });
});
