// What `structuredContent` costs the model when it repeats a result's text, in o200k tokens, over real
// results of the catalog servers (@modelcontextprotocol/server-filesystem on a temp folder holding a
// copy of this README and package.json, and @modelcontextprotocol/server-everything): the old rule
// (append the JSON unless a text block is that exact JSON) against the rule in
// src/tools/structured-content.ts (docs/results.md). Run: npx tsx bench/structured-results.ts
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createMcpConnector } from '../src/adapters/mcp/index.ts';
import type { CallToolResult } from '../src/ports/mcp.ts';
import { mcpResultToPi } from '../src/tools/content.ts';
import { EVERYTHING_ENTRY } from '../test/fixtures/servers/spawn.ts';
import { definition } from '../test/support/config.ts';
import { tokens } from './tokens.ts';

const REPO = resolve(import.meta.dirname, '..');
const FILESYSTEM_ENTRY = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/** The rule before: the JSON is appended unless one text block is exactly that JSON (keys sorted). */
function before(result: CallToolResult, tempDir: string): string[] {
  const texts = textsOf({ ...result, structuredContent: undefined }, tempDir);
  const structured = result.structuredContent;
  if (structured === undefined || structured === null) return texts;
  const sorted = (v: unknown) =>
    JSON.stringify(v, (_k, x: unknown) =>
      x && typeof x === 'object' && !Array.isArray(x)
        ? Object.fromEntries(
            Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
          )
        : x,
    );
  const same = texts.some((t) => {
    try {
      return sorted(JSON.parse(t)) === sorted(structured);
    } catch {
      return false;
    }
  });
  return same ? texts : [...texts, JSON.stringify(structured)];
}

const count = (texts: string[]) => texts.reduce((n, t) => n + tokens(t), 0);
const textsOf = (result: CallToolResult, tempDir: string) =>
  mcpResultToPi(result, { tempDir }).content.flatMap((c) => (c.type === 'text' ? [c.text] : []));

async function main() {
  const folder = mkdtempSync(join(tmpdir(), 'bench-structured-'));
  const files = join(folder, 'files');
  mkdirSync(join(files, 'docs'), { recursive: true });
  copyFileSync(join(REPO, 'README.md'), join(files, 'README.md'));
  copyFileSync(join(REPO, 'package.json'), join(files, 'package.json'));
  copyFileSync(join(REPO, 'docs/config.md'), join(files, 'docs/config.md'));
  const connect = createMcpConnector();
  const calls: Array<[string, Array<[string, Record<string, unknown>]>]> = [
    [
      'filesystem',
      [
        ['read_text_file', { path: join(files, 'README.md') }],
        ['read_text_file', { path: join(files, 'package.json') }],
        ['read_text_file', { path: join(files, 'docs/config.md'), head: 60 }],
        ['read_multiple_files', { paths: [join(files, 'package.json'), join(files, 'README.md')] }],
        ['list_directory', { path: files }],
        ['list_directory_with_sizes', { path: files }],
        ['directory_tree', { path: files }],
        ['search_files', { path: files, pattern: '*.md' }],
        ['get_file_info', { path: join(files, 'README.md') }],
        ['list_allowed_directories', {}],
      ],
    ],
    [
      'everything',
      [
        ['echo', { message: 'hello from the bench' }],
        ['get-sum', { a: 2, b: 40 }],
        ['get-structured-content', { location: 'Chicago' }],
        ['get-annotated-message', { messageType: 'success' }],
        ['get-resource-links', { count: 3 }],
      ],
    ],
  ];
  const rows: string[] = [];
  let totalBefore = 0;
  let totalAfter = 0;
  try {
    for (const [server, list] of calls) {
      const args = server === 'filesystem' ? [FILESYSTEM_ENTRY, files] : [EVERYTHING_ENTRY];
      const def = definition({ name: server, command: process.execPath, args, protocolVersion: 'legacy' });
      const connection = await connect(def, { signal: new AbortController().signal });
      try {
        for (const [tool, input] of list) {
          const raw = await connection.callTool(tool, input);
          const was = count(before(raw, folder));
          const now = count(textsOf(raw, folder));
          totalBefore += was;
          totalAfter += now;
          const structured = raw.structuredContent === undefined ? 'no' : 'yes';
          rows.push(`| ${server} | ${tool} | ${structured} | ${was} | ${now} | ${was - now} |`);
        }
      } finally {
        await connection.close();
      }
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const saved = totalBefore - totalAfter;
  console.log('| server | tool | structuredContent | tokens before | tokens now | saved |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
  console.log(
    `| all | ${rows.length} calls | | ${totalBefore} | ${totalAfter} | ${saved} (${((100 * saved) / totalBefore).toFixed(1)} %) |`,
  );
}

await main();
