import { ACTION_VERBS, LOOKUP_VERBS } from './intent.ts';
import { isContentWord, splitWords, stem } from './tokenize.ts';

/** Words that join two requests in one sentence ("… and post …", "… then …"). */
const JOINERS =
  /\s*(?:[;,]?\s+(?:and then|and also|and|then|after that|afterwards|also|plus)\s+|;\s*|\.\s+)/i;
const MIN_CONTENT_WORDS = 2;
const MAX_PARTS = 4;

function contentWords(text: string): number {
  return splitWords(text).filter(isContentWord).length;
}

/** A new request starts with a verb ("… and post a summary"); "latitude and longitude" does not. */
function startsWithVerb(text: string): boolean {
  const first = splitWords(text).find(isContentWord);
  if (!first) return false;
  const word = stem(first);
  return ACTION_VERBS.has(word) || LOOKUP_VERBS.has(word);
}

/**
 * The separate requests of a multi-intent query ("list my open pull requests and post a summary to
 * the team channel" → two parts), or [] when it asks for one thing. A part needs two content words
 * and every part after the first starts with a verb, so "drag and drop the card" or "turn latitude
 * and longitude into an address" stay one request.
 */
export function splitIntents(query: string): string[] {
  const parts = query.split(JOINERS).map((p) => p.trim());
  if (parts.length < 2 || parts.length > MAX_PARTS) return [];
  const separate =
    parts.every((p) => contentWords(p) >= MIN_CONTENT_WORDS) && parts.slice(1).every(startsWithVerb);
  return separate ? parts : [];
}
