// The panel's "tokens if direct" estimate against the real o200k tokenizer, per real server catalog.

import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { readCatalogs } from '../../../bench/support/catalogs.ts';
import { declarationTokens } from '../../../src/catalog/declaration-tokens.ts';

const enc = new Tiktoken(o200k);

describe('declarationTokens', () => {
  it('is within 20% of o200k for every real catalog', () => {
    const catalogs = readCatalogs();
    expect(catalogs.length).toBeGreaterThanOrEqual(20);
    for (const c of catalogs) {
      const entries = c.tools.map((t) => ({
        name: `${c.server}__${t.name}`,
        description: t.description ?? '',
        inputSchema: t.inputSchema,
      }));
      const exact = entries.reduce(
        (n, e) =>
          n +
          enc.encode(
            JSON.stringify({
              type: 'function',
              function: { name: e.name, description: e.description, parameters: e.inputSchema },
            }),
          ).length,
        0,
      );
      const estimate = entries.reduce((n, e) => n + declarationTokens(e), 0);
      expect(Math.abs(estimate - exact) / exact, c.server).toBeLessThan(0.2);
    }
  });

  it('grows with the description and the schema', () => {
    const small = declarationTokens({ name: 'a', description: '', inputSchema: { type: 'object' } });
    const large = declarationTokens({
      name: 'a',
      description: 'Creates an issue in a repository with a title, a body and labels.',
      inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } } },
    });
    expect(small).toBeGreaterThan(0);
    expect(large).toBeGreaterThan(small * 2);
  });
});
