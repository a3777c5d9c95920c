// Turn-one context cost of MCP, in o200k tokens: what our extension adds to the first request
// (ToolSearch's declaration) vs registering every tool directly, vs a seed-style catalog description
// that lists every deferred tool. Run: npx tsx bench/tokens.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { buildCatalog } from '../src/catalog/catalog.ts';
import type { LoadedConfig } from '../src/config/types.ts';
import { sessionDescription } from '../src/session/describe-session.ts';
import { TOOL_SEARCH_NAME, toolSearchParameters } from '../src/tools/tool-search.ts';
import { loadedConfig } from '../test/support/config.ts';
import {
  type CatalogFile,
  FIVE_SERVERS,
  readCatalogs,
  stdioDefinition,
  syntheticCatalogs,
} from './support/catalogs.ts';

const enc = new Tiktoken(o200k);
export const tokens = (text: string) => enc.encode(text).length;

/** Tokens of one tool as an OpenAI-format declaration in the request body. */
export function declarationTokens(name: string, description: string, parameters: unknown): number {
  return tokens(JSON.stringify({ type: 'function', function: { name, description, parameters } }));
}

function configOf(catalogs: CatalogFile[]): LoadedConfig {
  return loadedConfig(catalogs.map((c) => stdioDefinition(c.server)));
}

export function measure(catalogs: CatalogFile[]) {
  const config = configOf(catalogs);
  const cached = Object.fromEntries(
    catalogs.map((c) => [c.server, { tools: c.tools, resources: c.resources ?? [] }]),
  );
  const ours = declarationTokens(TOOL_SEARCH_NAME, sessionDescription(config, cached), toolSearchParameters);
  const catalog = buildCatalog(
    config.servers.map((definition) => ({ definition, ...cached[definition.name] })),
    { toolPrefix: 'server' },
  );
  const direct = catalog.entries.reduce(
    (n, e) => n + declarationTokens(e.name, e.description, e.inputSchema),
    0,
  );
  const seedStyle = declarationTokens(
    TOOL_SEARCH_NAME,
    `Search and load MCP tools. Available deferred tools:\n${catalog.entries.map((e) => `- ${e.name}: ${e.description.split('\n')[0]}`).join('\n')}`,
    toolSearchParameters,
  );
  return { servers: catalogs.length, tools: catalog.entries.length, ours, direct, seedStyle };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = {
    five: measure(readCatalogs(FIVE_SERVERS)),
    all23: measure(readCatalogs()),
    synthetic100x50: measure(syntheticCatalogs(100, 50)),
  };
  console.table(rows);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/tokens.json', `${JSON.stringify(rows, null, 2)}\n`);
}
