import { describe, expect, it } from 'vitest';
import { RegisteredTools } from '../../../src/actors/registered-tools.ts';
import type { CatalogEntry } from '../../../src/catalog/catalog.ts';

const entry = (name: string, description = `${name} does things`): CatalogEntry => ({
  name,
  server: 'big',
  tool: name,
  kind: 'tool',
  description,
  inputSchema: { type: 'object' },
  exposure: 'deferred',
});

describe('RegisteredTools', () => {
  it('registers only wanted tools; once registered, a tool stays so and is registered again when it changes', () => {
    const registered = new RegisteredTools();
    const wanted = new Set(['a']);
    const first = registered.update([entry('a'), entry('b'), entry('c')], (e) => wanted.has(e.name));
    expect(first.changed.map((e) => e.name)).toEqual(['a']);

    wanted.clear();
    wanted.add('c');
    const second = registered.update([entry('a', 'a changed'), entry('b'), entry('c')], (e) =>
      wanted.has(e.name),
    );
    expect(second.changed.map((e) => e.name)).toEqual(['a', 'c']);
    expect(second.withdrawn).toEqual([]);
  });

  it('withdraws a registered tool the catalog no longer has, never one it never registered', () => {
    const registered = new RegisteredTools();
    registered.update([entry('a'), entry('b')], (e) => e.name === 'a');
    const { changed, withdrawn } = registered.update([], () => true);
    expect(changed).toEqual([]);
    expect(withdrawn.map((e) => e.name)).toEqual(['a']);
  });
});
