import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../../src/catalog/catalog.ts';
import { RegisteredTools } from '../../../src/session/registered-tools.ts';

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

  it('one registry for the host start and the runtime: a tool added at start is not registered again', () => {
    const registered = new RegisteredTools();
    expect(registered.add(entry('a'))).toBe(true);
    expect(registered.add(entry('a'))).toBe(false);
    const { changed } = registered.update([entry('a'), entry('b')], () => true);
    expect(changed.map((e) => e.name)).toEqual(['b']);
    expect(registered.add(entry('a', 'a changed'))).toBe(true);
  });

  it('a withdrawn tool stays known to the host and is registered again when it comes back', () => {
    const registered = new RegisteredTools();
    registered.update([entry('a')]);
    expect(registered.update([]).withdrawn.map((e) => e.name)).toEqual(['a']);
    expect(registered.update([]).withdrawn).toEqual([]);
    expect(registered.has('a')).toBe(true);
    expect(registered.update([entry('a')], () => false).changed).toEqual([]);
    expect(registered.update([entry('a')], () => true).changed.map((e) => e.name)).toEqual(['a']);
  });

  it('annotations and the server are part of what the host was told', () => {
    const registered = new RegisteredTools();
    registered.add(entry('a'));
    expect(registered.add({ ...entry('a'), annotations: { readOnlyHint: true } })).toBe(true);
  });
});
