// Why a host runs two copies of one server: the parts of their instance keys (./instance-key.ts) that
// differ, in words (`env FOO`, `project folder`, `arguments`). Names only, never values: an env value
// or a header may be a secret.

import { keyMaterial, stableJson } from './instance-key.ts';
import type { InstanceRequest } from './protocol.ts';

const FIELD_WORDS: Record<string, string> = {
  command: 'command',
  args: 'arguments',
  cwd: 'working folder',
  runsIn: 'working folder',
  url: 'URL',
  transport: 'transport',
  inheritEnv: 'inherited environment',
};

/** The parts in which two requests' keys differ, in a stable order. */
export function keyDifference(a: InstanceRequest, b: InstanceRequest): string[] {
  const left = keyMaterial(a) as { runs: Record<string, unknown> } & Record<string, unknown>;
  const right = keyMaterial(b) as { runs: Record<string, unknown> } & Record<string, unknown>;
  const parts: string[] = [];
  const same = (x: unknown, y: unknown) => stableJson(x) === stableJson(y);
  for (const field of unionKeys(left.runs, right.runs)) {
    const [x, y] = [left.runs[field], right.runs[field]];
    if (same(x, y)) continue;
    if (field === 'env' || field === 'headers') {
      const xs = (x ?? {}) as Record<string, unknown>;
      const ys = (y ?? {}) as Record<string, unknown>;
      for (const name of unionKeys(xs, ys)) if (!same(xs[name], ys[name])) parts.push(`${field} ${name}`);
      continue;
    }
    parts.push(FIELD_WORDS[field] ?? field);
  }
  if (!same(left.share, right.share)) parts.push('share');
  if (!same(left.project, right.project)) parts.push('project folder');
  if (!same(left.roots, right.roots)) parts.push('roots');
  const answers = ['roots', 'elicit', 'sample'] as const;
  const words = { roots: 'answers roots', elicit: 'answers elicitation', sample: 'answers sampling' };
  for (const kind of answers) if (a.answers?.[kind] !== b.answers?.[kind]) parts.push(words[kind]);
  return [...new Set(parts)];
}

/** For copies of one server (same name), what tells each from the others: the union over the pairs. */
export function copiesDiffer(requests: InstanceRequest[]): string[] {
  const parts = new Set<string>();
  for (let i = 0; i < requests.length; i++)
    for (let j = i + 1; j < requests.length; j++)
      for (const part of keyDifference(requests[i]!, requests[j]!)) parts.add(part);
  return [...parts];
}

function unionKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
}
