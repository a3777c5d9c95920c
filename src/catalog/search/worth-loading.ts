// Which of ToolSearch's hits are worth loading: a loaded tool's schema rides on every later request,
// so a hit scoring far below the best of its request is only named ("also: …"), for select: to load.

import type { SearchHit } from '../search.ts';

/**
 * A hit is loaded when it scores at least this share of the best available hit of its request
 * (`SearchHit.relative`). Chosen from the score distribution over the 244 dev queries
 * (bench/queries/dev, paraphrase*, final-unseen; never the untouched sets): where the first right
 * tool is not ranked first, it scored 0.47 of the best or more (median 0.91), while half of the
 * wrong hits in places 2–5 score below 0.40. 0.4 keeps every such right tool with a margin.
 */
export const LOAD_SHARE = 0.4;

export interface WorthLoading<H> {
  load: H[];
  also: H[];
}

/** Splits hits (best first) into those to load and those only to name; the first is always loaded. */
export function worthLoading<H extends Pick<SearchHit, 'relative'>>(
  hits: readonly H[],
  share = LOAD_SHARE,
): WorthLoading<H> {
  // The best available hit may not be the best of all (its server switched off): measure from it.
  const top = Math.max(0, ...hits.map((h) => h.relative));
  const load: H[] = [];
  const also: H[] = [];
  for (const [i, hit] of hits.entries()) (i === 0 || hit.relative >= share * top ? load : also).push(hit);
  return { load, also };
}
