// Which stored sign-in an entry would use: the consent question asks this of a project entry, so a
// repository's entry never inherits the user's sign-in silently (issue 34, finding 9). An entry uses
// the sign-in of its name and URL made with the same OAuth settings (signInSettings); with none of
// its own, also one the user has in Pi's built-in MCP or pi-mcp-adapter.

import type { ServerDefinition } from '../config/types.ts';
import { bindingOf, signInSettings } from './sign-in-binding.ts';
import type { TokenStore } from './token-store.ts';

export interface SignInUse {
  /** The entry's name and URL the sign-in is stored under. */
  name: string;
  url: string;
  /** The authorization server it was made with, when known (an imported one is bound at first use). */
  issuer?: string;
  /** Made here, or read from Pi's built-in MCP (`pi`) or pi-mcp-adapter. */
  source: 'pi-mcp-actors' | 'pi' | 'pi-mcp-adapter';
}

/** The stored sign-in (with tokens) this entry would send its tokens from, or undefined. */
export function signInFor(def: ServerDefinition, store: TokenStore): SignInUse | undefined {
  if (!def.url || def.transport === 'stdio') return undefined;
  const record = store.get(def.name, def.url, signInSettings(def));
  if (!record?.tokens) return undefined;
  const issuer = bindingOf(record)?.issuer ?? record.tokens.issuer;
  return {
    name: record.name,
    url: record.url,
    ...(typeof issuer === 'string' ? { issuer } : {}),
    source: record.source ?? 'pi-mcp-actors',
  };
}

/** Whether allowing this entry would let it use a sign-in the user already has. */
export function wouldUseSignIn(def: ServerDefinition, store: TokenStore): boolean {
  return signInFor(def, store) !== undefined;
}
