// Loads the real tools/list catalogs in bench/data/catalog as if they came from the metadata cache.

import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ServerDefinition } from '../../src/config/types.ts';
import type { ResourceDescriptor, ToolDescriptor } from '../../src/ports/mcp.ts';
import { definition } from '../../test/support/config.ts';

export const CATALOG_DIR = resolve(import.meta.dirname, '../data/catalog');
export const FIVE_SERVERS = ['everything', 'filesystem', 'memory', 'github', 'playwright'];

export interface CatalogFile {
  server: string;
  tools: ToolDescriptor[];
  resources?: ResourceDescriptor[];
}

export function readCatalogs(names?: string[]): CatalogFile[] {
  const files = readdirSync(CATALOG_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  return files
    .map((f) => JSON.parse(readFileSync(join(CATALOG_DIR, f), 'utf8')) as CatalogFile)
    .filter((c) => !names || names.includes(c.server));
}

export function stdioDefinition(name: string, overrides: Partial<ServerDefinition> = {}): ServerDefinition {
  return definition({ name, command: 'npx', args: ['-y', `@example/${name}`], ...overrides });
}

/** Synthetic catalogs: `servers` servers of `tools` tools each, built by cycling the real tools. */
export function syntheticCatalogs(servers: number, tools: number): CatalogFile[] {
  const real = readCatalogs().flatMap((c) => c.tools);
  return Array.from({ length: servers }, (_, s) => ({
    server: `synthetic-${s}`,
    tools: Array.from({ length: tools }, (_, t) => {
      const base = real[(s * tools + t) % real.length]!;
      return { ...base, name: `${base.name}_${t}` };
    }),
  }));
}
