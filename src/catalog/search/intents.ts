import { isContentWord, splitWords } from './tokenize.ts';

/** Words that join two requests in one sentence ("… and post …", "… then …"). */
const JOINERS =
  /\s*(?:[;,]?\s+(?:and then|and also|and|then|after that|afterwards|also|plus)\s+|;\s*|\.\s+)/i;
const MIN_CONTENT_WORDS = 2;
const MAX_PARTS = 4;

function contentWords(text: string): number {
  return splitWords(text).filter(isContentWord).length;
}

/**
 * The separate requests of a multi-intent query ("list my open pull requests and post a summary to
 * the team channel" → two parts), or [] when it asks for one thing. A part needs two content words,
 * so "drag and drop" or "latitude and longitude" stay one request.
 */
export function splitIntents(query: string): string[] {
  const parts = query.split(JOINERS).map((p) => p.trim());
  if (parts.length < 2 || parts.length > MAX_PARTS) return [];
  return parts.every((p) => contentWords(p) >= MIN_CONTENT_WORDS) ? parts : [];
}
