// A URL safe to print in our own messages: its password and its whole query (where tokens travel)
// are dropped. Of the two former versions (one masked only secret-named parameters, one dropped the
// query) this keeps the safer one; text that is not a URL is not echoed.

import { REDACTED } from './key-policy.ts';

export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password !== '') url.password = REDACTED;
    if (url.search !== '') url.search = '?…';
    return url.toString();
  } catch {
    return '[url]';
  }
}
