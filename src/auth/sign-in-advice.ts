// How each surface tells the user to sign in to a server: in Pi, `/mcp-auth <server>`; in the CLI, its
// own `pi-mcp-actors login <server>` (a CLI user has no slash commands). One place for the wording,
// and for the reasons a needs-auth error keeps (docs/config.md promises them).

import type { Surface } from '../ports/surface-words.ts';
import { wordsFor } from '../tools/surface-words.ts';

export type { Surface };

export const REFRESH_REFUSED = 'the authorization server refused the refresh token';

/** The command that signs in to `server` on this surface. */
export function signInCommand(server: string, surface: Surface = 'pi'): string {
  return wordsFor(surface).signIn(server);
}

/** The instruction, lower-case, to follow a colon: "run /mcp-auth x" or "sign in: `pi-mcp-actors login x`". */
export function signInAdvice(server: string, surface: Surface = 'pi'): string {
  return surface === 'cli' ? `sign in: \`${signInCommand(server, 'cli')}\`` : `run ${signInCommand(server)}`;
}

/** The same, starting a sentence. */
export function signInSentence(server: string, surface: Surface = 'pi'): string {
  const advice = signInAdvice(server, surface);
  return `${advice[0]!.toUpperCase()}${advice.slice(1)}`;
}

/** The reason a connect error gave for needing a sign-in, when it is one worth repeating. */
export function signInReason(error: string | undefined): string | undefined {
  if (!error) return undefined;
  if (error.includes(REFRESH_REFUSED)) return REFRESH_REFUSED;
  const scope = /the server needs scope "([^"]*)"/.exec(error)?.[1];
  return scope === undefined ? undefined : `the server needs scope "${scope}"`;
}
