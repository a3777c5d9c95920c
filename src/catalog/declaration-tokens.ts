// What a tool adds to every model request when it is declared directly: an estimate of the tokens of
// its declaration (name, description, input schema as the provider receives them). No tokenizer ships
// at run time; over the 23 real catalogs in bench/data, o200k averages 4.5 characters of this JSON per
// token, within 16% for every server (test/unit/catalog/declaration-tokens.test.ts).

import type { CatalogEntry } from './catalog.ts';

const CHARS_PER_TOKEN = 4.5;

export function declarationTokens(entry: Pick<CatalogEntry, 'name' | 'description' | 'inputSchema'>): number {
  const declaration = JSON.stringify({
    type: 'function',
    function: { name: entry.name, description: entry.description, parameters: entry.inputSchema },
  });
  return Math.ceil(declaration.length / CHARS_PER_TOKEN);
}
