import type { FieldTerms } from './fields.ts';
import { analyze } from './fields.ts';
import { stem } from './tokenize.ts';

/** Appends `value` to the list kept under `key`. */
export function pushTo<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The name's terms in order, with glued words split where both halves are words the catalog uses
 * elsewhere ("sequentialthinking" → sequential, thinking). The parts are also added to the name field.
 */
export function splitGluedNames(fields: FieldTerms, df: Map<string, number>): string[] {
  const sequence: string[] = [];
  for (const term of fields.name) {
    sequence.push(term);
    if (term.length < 7 || (df.get(term) ?? 0) > 2 || !/^[a-z]+$/.test(term)) continue;
    for (let i = 3; i <= term.length - 3; i++) {
      const left = stem(term.slice(0, i));
      const right = stem(term.slice(i));
      if ((df.get(left) ?? 0) >= 2 && (df.get(right) ?? 0) >= 2) {
        sequence.push(left, right);
        fields.name.push(left, right);
        break;
      }
    }
  }
  return sequence;
}

/** Name terms minus the words most of a server's tool names share (browser_*, slack_*, API-*). */
export function distinctiveNameTerms(
  docs: ReadonlyArray<{ server: string; tool: string }>,
  sequences: string[][],
): string[][] {
  const byServer = new Map<string, number[]>();
  for (let i = 0; i < docs.length; i++) pushTo(byServer, docs[i]!.server, i);
  const result: string[][] = new Array(docs.length);
  for (const members of byServer.values()) {
    const counts = new Map<string, number>();
    for (const i of members) for (const t of new Set(sequences[i])) counts.set(t, (counts.get(t) ?? 0) + 1);
    const habitual = new Set<string>();
    if (members.length >= 3) for (const [t, c] of counts) if (c / members.length >= 0.6) habitual.add(t);
    for (const i of members) {
      const own = [...new Set(analyze(docs[i]!.tool))].filter((t) => !habitual.has(t));
      result[i] = own.length > 0 ? own : [...new Set(sequences[i])];
    }
  }
  return result;
}
