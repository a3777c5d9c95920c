import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assignToolNames } from '../../src/catalog/naming.ts';
import type { SearchDoc } from '../../src/catalog/search.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
export const CATALOG_DIR = join(here, '../data/catalog');
export const DEV_QUERIES = join(here, '../queries/dev.jsonl');
export const PARAPHRASE_QUERIES = join(here, '../queries/paraphrase.jsonl');
export const HOLDOUT_QUERIES = join(here, '../queries/paraphrase-holdout.jsonl');
export const FINAL_QUERIES = join(here, '../queries/final-unseen.jsonl');
/** Kept out of tuning: see bench/untouched/README.md. */
export const UNTOUCHED_CATALOG_DIR = join(here, '../data/untouched/catalog');
export const UNTOUCHED_QUERIES = join(here, '../queries/untouched.jsonl');
/** Kept out of tuning too: see bench/untouched2/README.md. */
export const UNTOUCHED2_CATALOG_DIR = join(here, '../data/untouched2/catalog');
export const UNTOUCHED2_QUERIES = join(here, '../queries/untouched2.jsonl');

interface CatalogFile {
  server: string;
  description?: string;
  title?: string;
  instructions?: string;
  tools: Array<{ name: string; title?: string; description?: string; inputSchema?: Record<string, unknown> }>;
}

export interface Query {
  q: string;
  expect: string[];
  /** untouched set: keyword, task or cjk. */
  style?: string;
}

export function loadCatalogFiles(dir = CATALOG_DIR): CatalogFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as CatalogFile);
}

/** Search docs for catalogs, named like the extension names them (prefix mode `server`). */
export function toDocs(
  catalogs: CatalogFile[],
  serverName: (server: string) => string = (s) => s,
): SearchDoc[] {
  const tools = catalogs.flatMap((c) =>
    c.tools.map((t) => ({ catalog: c, tool: t, server: serverName(c.server) })),
  );
  const { tools: named } = assignToolNames(
    tools.map((t) => ({ server: t.server, tool: t.tool.name })),
    'server',
  );
  return tools.map((t, i) => ({
    name: named[i]!.name,
    server: t.server,
    tool: t.tool.name,
    ...(t.tool.title ? { title: t.tool.title } : {}),
    ...(t.tool.description ? { description: t.tool.description } : {}),
    ...(t.tool.inputSchema ? { inputSchema: t.tool.inputSchema } : {}),
    ...(serverAbout(t.catalog) ? { serverDescription: serverAbout(t.catalog) } : {}),
  }));
}

/** What the extension's catalog says about a server (src/catalog/catalog.ts serverAbout). */
function serverAbout(c: CatalogFile): string | undefined {
  const parts = [c.description, c.title, c.instructions?.slice(0, 300)].filter(
    (p): p is string => typeof p === 'string' && p.trim() !== '',
  );
  return parts.length > 0 ? parts.join('\n') : undefined;
}

/** About `target` tools: the catalogs replicated under varied server names ("github-eu-3"). */
export function synthesizeDocs(catalogs: CatalogFile[], target: number): SearchDoc[] {
  const regions = ['eu', 'us', 'ap', 'dev', 'prod', 'staging', 'team', 'corp'];
  const copies: CatalogFile[] = [];
  let count = 0;
  for (let copy = 0; count < target; copy++) {
    for (const c of catalogs) {
      if (count >= target) break;
      const server = copy === 0 ? c.server : `${c.server}-${regions[copy % regions.length]}-${copy}`;
      const tools = c.tools.slice(0, target - count);
      copies.push({ ...c, server, tools });
      count += tools.length;
    }
  }
  return toDocs(copies);
}

export function loadQueries(path: string): Query[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Query);
}
