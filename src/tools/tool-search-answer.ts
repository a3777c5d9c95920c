// ToolSearch's answer: the search over the session's catalog and the text the model reads. Loaded on
// the first search, with the search index (the description in tool-search.ts is all startup needs).

import type { Catalog, CatalogEntry } from '../catalog/catalog.ts';
import { searchIndexOf } from '../catalog/search.ts';
import { oneLine, SEARCH_LIMIT } from './tool-search.ts';

export type SearchOutcome =
  | { kind: 'loaded'; entries: CatalogEntry[]; alreadyActive: string[]; unknownNames?: string[] }
  | { kind: 'none'; suggestions: string[]; unknownNames?: string[] };

export function searchCatalog(
  catalog: Catalog,
  query: string,
  active: ReadonlySet<string>,
  isAvailable: (entry: CatalogEntry) => boolean = () => true,
): SearchOutcome {
  const trimmed = query.trim();
  let entries: CatalogEntry[];
  let unknownNames: string[] | undefined;
  if (/^select:/i.test(trimmed)) {
    const names = trimmed
      .slice('select:'.length)
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    entries = names
      .map((n) => catalog.byName.get(n))
      .filter((e): e is CatalogEntry => e !== undefined && isAvailable(e));
    unknownNames = names.filter((n) => !entries.some((e) => e.name === n));
  } else {
    entries = searchIndexOf(catalog)
      .search(trimmed, SEARCH_LIMIT * 2)
      .map((hit) => catalog.byName.get(hit.name))
      .filter((e): e is CatalogEntry => e !== undefined && isAvailable(e))
      .slice(0, SEARCH_LIMIT);
  }
  if (entries.length === 0) {
    const suggestions = searchIndexOf(catalog).suggest(trimmed.replace(/^select:/i, ''), 5);
    return unknownNames ? { kind: 'none', suggestions, unknownNames } : { kind: 'none', suggestions };
  }
  return {
    kind: 'loaded',
    entries,
    alreadyActive: entries.filter((e) => active.has(e.name)).map((e) => e.name),
    // A select: with a typo among good names must say so, or the model calls a tool that is not there.
    ...(unknownNames && unknownNames.length > 0 ? { unknownNames } : {}),
  };
}

export function renderSearchOutcome(query: string, outcome: SearchOutcome, notes: string[] = []): string {
  const tail = notes.length > 0 ? `\n${notes.join('\n')}` : '';
  if (outcome.kind === 'none') {
    const unknown =
      outcome.unknownNames && outcome.unknownNames.length > 0
        ? `Unknown tool names: ${outcome.unknownNames.join(', ')}. `
        : '';
    const close = outcome.suggestions.length > 0 ? `Close names: ${outcome.suggestions.join(', ')}. ` : '';
    return `${unknown}No tools matched "${query}". ${close}Try other keywords, or select:<exact name>.${tail}`;
  }
  const lines = outcome.entries.map(
    (e) => `- ${e.name}: ${oneLine(e.description, 100) || '(no description)'}`,
  );
  if (outcome.unknownNames) {
    lines.push(
      `Unknown tool names (not loaded): ${outcome.unknownNames.join(', ')}. Search by keywords to find them.`,
    );
  }
  return `Loaded ${outcome.entries.length} tool${outcome.entries.length === 1 ? '' : 's'}; call ${
    outcome.entries.length === 1 ? 'it' : 'them'
  } directly from your next step:\n${lines.join('\n')}${tail}`;
}
