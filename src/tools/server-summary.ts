// One line per server for ToolSearch's description: what the server is for (its configured description,
// else its own title and instructions) and the tools it has, most telling names first, within a budget.

import { oneLine } from './tool-search.ts';

/** Characters of tool names per server line: more each when there are few servers. */
const TOTAL_LINE_CHARS = 1_300;
const MAX_LINE_CHARS = 110;
const MIN_LINE_CHARS = 40;
const PURPOSE_CHARS = 60;
/** A leading word most of a server's tool names share (browser_, slack_, API-) is left out. */
const HABITUAL_SHARE = 0.6;
/** Verbs say little about what a server is for; names that bring new nouns come first. */
const GENERIC = new Set(
  'get list create update delete add remove set read write search find fetch run a an the of to by for'.split(
    ' ',
  ),
);

export function lineBudget(servers: number): number {
  return Math.max(
    MIN_LINE_CHARS,
    Math.min(MAX_LINE_CHARS, Math.floor(TOTAL_LINE_CHARS / Math.max(1, servers))),
  );
}

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9\p{L}]+/u)
    .filter(Boolean)
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

function habitualPrefix(names: string[]): string | undefined {
  if (names.length < 3) return undefined;
  const counts = new Map<string, number>();
  for (const name of names) {
    const match = name.match(/^([A-Za-z0-9]+)[_\-.]/);
    if (match) counts.set(match[0], (counts.get(match[0]) ?? 0) + 1);
  }
  let best: [string, number] | undefined;
  for (const entry of counts) if (!best || entry[1] > best[1]) best = entry;
  return best && best[1] / names.length >= HABITUAL_SHARE ? best[0] : undefined;
}

/**
 * Tool names without the habitual prefix, most telling first: each next name is the one whose new
 * words are shared by most of the server's tools (what the server is about), per word it costs.
 */
export function telling(server: string, names: string[]): string[] {
  const prefix = habitualPrefix(names);
  const own = new Set(words(server));
  const remaining = names.map((n) => {
    const name = prefix && n.startsWith(prefix) && n.length > prefix.length ? n.slice(prefix.length) : n;
    return { name, words: [...new Set(words(name).filter((w) => !GENERIC.has(w) && !own.has(w)))] };
  });
  const frequency = new Map<string, number>();
  for (const r of remaining) for (const w of r.words) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  const seen = new Set<string>();
  const ordered: string[] = [];
  while (remaining.length > 0) {
    let best = 0;
    let bestGain = -1;
    remaining.forEach((r, k) => {
      let gain = 0;
      for (const w of r.words) if (!seen.has(w)) gain += frequency.get(w)!;
      gain /= Math.sqrt(r.words.length + 1);
      if (gain > bestGain) {
        best = k;
        bestGain = gain;
      }
    });
    const [pick] = remaining.splice(best, 1);
    for (const w of pick!.words) seen.add(w);
    ordered.push(pick!.name);
  }
  return ordered;
}

function purposeOf(server: string, about: ServerAbout): string {
  if (about.description) return oneLine(about.description, PURPOSE_CHARS);
  const own = server.toLowerCase().replace(/[^a-z0-9]/g, '');
  const title = about.title && about.title.toLowerCase().replace(/[^a-z0-9]/g, '') !== own ? about.title : '';
  const parts = [title, about.instructions ? oneLine(about.instructions, PURPOSE_CHARS) : ''].filter(Boolean);
  return parts.length > 0 ? oneLine(parts.join(': '), PURPOSE_CHARS) : '';
}

export interface ServerAbout {
  description?: string | undefined;
  title?: string | undefined;
  instructions?: string | undefined;
  toolNames: string[];
  /** Characters for the line (see lineBudget). */
  budget: number;
}

/** The server's line: purpose, then tool names within the budget; undefined when nothing is known. */
export function serverLine(server: string, about: ServerAbout): string | undefined {
  const purpose = purposeOf(server, about);
  const room = Math.max(0, about.budget - purpose.length);
  const shown: string[] = [];
  let used = 0;
  const names = telling(server, about.toolNames);
  for (const name of names) {
    if (used + name.length + 2 > room) break;
    shown.push(name);
    used += name.length + 2;
  }
  const tools = shown.length === 0 ? '' : `${shown.join(', ')}${shown.length < names.length ? ', …' : ''}`;
  if (purpose && tools) return `${purpose} Tools: ${tools}`;
  return purpose || tools || undefined;
}
