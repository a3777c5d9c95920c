// `pi-mcp-actors search`: the same search as ToolSearch, told to a person. ToolSearch's answer is for
// the model (it loads tools, tells it to call them, passes on a server's instructions); here nothing is
// loaded, so the answer lists the matches, each with its server and one line, and what to type next.

import type { Runtime } from '../actors/session-actor.ts';
import type { CatalogEntry } from '../catalog/catalog.ts';
import { didYouMean } from '../config/suggest.ts';
import { serverErrorText } from '../server-error-text.ts';
import { ensureConnected } from '../session/ensure-connected.ts';
import { plainText } from '../terminal-text.ts';
import { oneLine } from '../tools/tool-search.ts';
import { type SearchOutcome, searchCatalog } from '../tools/tool-search-answer.ts';

const LINE_CHARS = 80;

/** Lists the tools of the servers not known yet (not cached), so a search sees them; says so first. */
export async function listUnknownServers(runtime: Runtime, err: (text: string) => void): Promise<string[]> {
  const context = runtime.actor.getSnapshot().context;
  const refs = runtime.servers();
  const unknown = Object.keys(refs).filter((name) => !context.catalogs[name]);
  if (unknown.length === 0) return [];
  err(`Listing the tools of ${unknown.join(', ')} (not in the tool cache yet)…`);
  const failed: string[] = [];
  await Promise.all(
    unknown.map(async (name) => {
      const result = await ensureConnected(refs[name]!, { surface: 'cli' });
      if (result.ok) return;
      const error = refs[name]!.getSnapshot().context.lastError;
      failed.push(`${name} could not be searched: ${error ? serverErrorText(error) : result.error.message}`);
    }),
  );
  return failed.sort();
}

function rows(entries: readonly CatalogEntry[]): string[] {
  const width = Math.max(...entries.map((e) => e.name.length));
  return entries.map(
    (e) => `  ${e.name.padEnd(width)}  ${oneLine(e.description, LINE_CHARS) || '(no description)'}`,
  );
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The answer to one query, in a person's words. */
export function searchForPerson(runtime: Runtime, query: string): string {
  const context = runtime.actor.getSnapshot().context;
  const outcome: SearchOutcome = searchCatalog(
    runtime.catalog(),
    query,
    new Set(),
    (e) => !context.disabled.includes(e.server),
  );
  const shown = plainText(query, 200).replace(/\s+/g, ' ');
  switch (outcome.kind) {
    case 'server':
      return [
        `${outcome.server} has ${plural(outcome.entries.length, 'tool')}:`,
        ...rows(outcome.entries),
        'Call one with: pi-mcp-actors call <name> \'{"argument": "value"}\'',
      ].join('\n');
    case 'unknown-server': {
      const servers = Object.keys(runtime.servers()).sort();
      const guess = didYouMean(outcome.server, servers);
      return `No server named "${outcome.server}".${guess ? ` ${guess}` : ''} Servers: ${servers.join(', ') || '(none)'}.`;
    }
    case 'none': {
      const close = outcome.suggestions.length > 0 ? ` Close words: ${outcome.suggestions.join(', ')}.` : '';
      return `No tool matches "${shown}".${close} Try other words, or \`pi-mcp-actors tools\` to list every tool.`;
    }
    case 'loaded': {
      const byServer = new Set(outcome.entries.map((e) => e.server));
      const lines = [
        `${plural(outcome.entries.length, 'tool')} from ${[...byServer].join(', ')} match "${shown}"${outcome.weak ? ' (weakly: none matches most of the words)' : ''}:`,
        ...rows(outcome.entries),
      ];
      if (outcome.unknownNames) lines.push(`Not found: ${outcome.unknownNames.join(', ')}.`);
      lines.push('Call one with: pi-mcp-actors call <name> \'{"argument": "value"}\'');
      return lines.join('\n');
    }
  }
}
