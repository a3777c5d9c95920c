import { stem } from './tokenize.ts';

/** Verbs that ask for something to be done; a query without any asks to look something up. */
export const ACTION_VERBS = new Set(
  (
    'create add new make generate insert build init delete remove drop erase destroy purge clear forget uninstall ' +
    'update edit modify change patch alter set rename replace write save store append send post publish submit ' +
    'reply respond answer run execute exec invoke launch trigger start stop terminate kill cancel close open ' +
    'navigate visit go click press type fill hover drag drop upload download export import move copy clone ' +
    'fork merge install upgrade deploy scale restart apply push approve mark resolve assign toggle switch enable ' +
    'disable record capture take grab compress convert translate remember tell notify invite share schedule link'
  )
    .split(/\s+/)
    .map(stem),
);
/**
 * What a query wants done, by the verbs in it, against what a tool does, by the verbs in its name.
 * A query that only creates should not get a tool that only lists; one that adds should not get one
 * that removes (opposites cost more). Queries with verbs of several kinds, or none, are not judged.
 */
const CRUD_VERBS: Record<string, string> = {
  create: 'create add new make generate insert install register post open launch spawn init compose link',
  delete: 'delete remove drop erase destroy purge uninstall forget clear discard wipe',
  update:
    'update edit modify change patch alter set rename replace move toggle mark assign upgrade write append',
  read: 'get list find search read retrieve fetch show describe view lookup inspect browse',
  run: 'run exec execute invoke trigger evaluate perform',
  send: 'send post publish tell notify message reply share announce',
};
/** Running something may well be how one reads (a query, a report). */
const COMPATIBLE_KINDS: Record<string, string> = { run: 'read' };
const OPPOSED_VERBS: Array<[string, string]> = [
  ['create', 'delete'],
  ['run exec execute start launch spawn trigger', 'stop kill terminate halt cancel abort'],
  ['upload', 'download'],
];
const CRUD_MISMATCH_PENALTY = 0.85;
const OPPOSITION_PENALTY = 0.75;

const CRUD_CLASS = new Map<string, string[]>();
for (const [kind, verbs] of Object.entries(CRUD_VERBS)) {
  for (const verb of verbs.split(' ').map(stem))
    CRUD_CLASS.set(verb, [...(CRUD_CLASS.get(verb) ?? []), kind]);
}
const OPPOSED_SIDES: Array<[Set<string>, Set<string>]> = OPPOSED_VERBS.map(([a, b]) => {
  const side = (words: string) =>
    new Set(
      words
        .split(' ')
        .flatMap((w) => (CRUD_VERBS[w] ?? w).split(' '))
        .map(stem),
    );
  return [side(a), side(b)];
});

/** Verbs of tool names that look things up (get_, list_, find_ ...). */
export const LOOKUP_VERBS = new Set(
  'get list find search read retrieve fetch query show describe view lookup inspect'.split(' ').map(stem),
);

/** What a query's verbs ask for (create, delete, update, read, run, send). */
export function crudKinds(words: Iterable<string>): Set<string> {
  const kinds = new Set<string>();
  for (const w of words) for (const kind of CRUD_CLASS.get(w) ?? []) kinds.add(kind);
  return kinds;
}

/**
 * 1, or a penalty when the tool's name says it does something else than the query asks: the opposite
 * (add vs remove, start vs stop), or another kind of thing (list when asked to create).
 */
export function intentFit(
  queryWords: ReadonlySet<string>,
  queryKinds: ReadonlySet<string>,
  name: string[],
): number {
  for (const [a, b] of OPPOSED_SIDES) {
    const queryA = [...queryWords].some((w) => a.has(w));
    const queryB = [...queryWords].some((w) => b.has(w));
    if (queryA === queryB) continue;
    const [wanted, opposite] = queryA ? [a, b] : [b, a];
    if (name.some((t) => opposite.has(t)) && !name.some((t) => wanted.has(t))) return OPPOSITION_PENALTY;
  }
  if (queryKinds.size !== 1) return 1;
  const nameKinds = crudKinds(name);
  if (nameKinds.size === 0) return 1;
  for (const kind of queryKinds) {
    if (nameKinds.has(kind) || nameKinds.has(COMPATIBLE_KINDS[kind] ?? '')) return 1;
  }
  return CRUD_MISMATCH_PENALTY;
}
