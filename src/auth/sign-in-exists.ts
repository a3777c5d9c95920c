// Whether the user already has a sign-in a server entry would use (its name, URL and OAuth settings,
// as signInFor looks it up), read from the entry as written. Asked for a project entry before consent,
// so the question says it would use that sign-in.

import { variablesIn } from '../config/consent-lines.ts';
import type { ServerDefinition, ServerFields } from '../config/types.ts';
import { signInSettings } from './sign-in-binding.ts';
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
    const settings = signInSettings({ oauth: fields?.oauth } as Pick<ServerDefinition, 'oauth'>);
    return store.get(name, url, settings)?.tokens !== undefined;
  } catch {
    return false;
  }
}
