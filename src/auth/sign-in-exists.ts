// Whether the user already has a sign-in a server entry would use (the store's lookup: its name and
// URL). Asked for a project entry before consent, so the question says it would use that sign-in.

import { variablesIn } from '../config/consent-lines.ts';
import type { ServerFields } from '../config/entry.ts';
import type { TokenStore } from './token-store.ts';

export function signInExists(
  store: Pick<TokenStore, 'get'>,
  name: string,
  fields: ServerFields | undefined,
): boolean {
  const url = fields?.url ?? fields?.serverUrl;
  // A URL that names a variable is not looked up: its value is not read before consent.
  if (url === undefined || variablesIn(url).length > 0) return false;
  try {
    return store.get(name, url) !== undefined;
  } catch {
    return false;
  }
}
