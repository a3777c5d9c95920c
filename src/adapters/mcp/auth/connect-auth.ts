// OAuth while connecting: which servers get our OAuthClientProvider, and the needs-auth message that
// says what to do.

import { REFRESH_REFUSED, type Surface, signInAdvice, signInCommand } from '../../../auth/sign-in-advice.ts';
import type { ServerDefinition } from '../../../config/types.ts';
import type { SignInNeed } from './provider.ts';

/**
 * HTTP servers with `auth: "oauth"` or an `oauth` block, and those with no credentials of their own
 * (no bearer token, no Authorization header, auth not false): a 401 with `WWW-Authenticate: Bearer`
 * from them is answered with OAuth.
 */
export function usesOAuth(def: ServerDefinition): boolean {
  if (def.transport === 'stdio' || !def.url) return false;
  if (def.auth === 'oauth' || def.oauth !== undefined) return true;
  if (def.auth === false || def.auth === 'bearer' || def.bearerToken !== undefined) return false;
  const commandHeaders = (def.commandValues ?? []).flatMap((value) =>
    value.field === 'bearerToken' ? ['authorization'] : value.field === 'headers' ? [value.key ?? ''] : [],
  );
  return ![...Object.keys(def.headers), ...commandHeaders].some(
    (key) => key.toLowerCase() === 'authorization',
  );
}

/** What a needs-auth server's error says: the reason, and the command that fixes it on this surface. */
export function needsAuthMessage(
  def: ServerDefinition,
  need: SignInNeed | undefined,
  status = 401,
  surface: Surface = 'pi',
): string {
  const name = def.name;
  const run = surface === 'cli' ? signInAdvice(name, 'cli') : piRun(name);
  const head = `Server "${name}" needs authentication (HTTP ${status})`;
  switch (need?.kind) {
    case 'refresh-refused':
      return `${head}: ${REFRESH_REFUSED}: sign in again: ${surface === 'cli' ? cliAgain(name) : run}`;
    case 'scope':
      return `${head}: the server needs scope "${need.scope}": ${run} to grant it`;
    case 'issuer':
      return `${head}: ${need.message}; check the server's URL`;
    case 'other-server':
      return `${head}: ${need.message}: ${run}`;
    case 'sign-in':
      return need.elsewhere ? `${head}: ${run}; ${need.elsewhere}` : `${head}: ${run}`;
    default:
      return `${head}: ${run}`;
  }
}

/** Pi's words: both commands (a Pi user may prefer a shell). */
function piRun(name: string): string {
  return `${signInAdvice(name)} (or \`pi-mcp-actors login ${name}\`)`;
}

function cliAgain(name: string): string {
  return `\`${signInCommand(name, 'cli')}\``;
}

/**
 * A needs-auth message in Pi's words (the shared host's: its servers serve every surface) in the words
 * of `surface`: the CLI names only its own command.
 */
export function inSurfaceWords(message: string, name: string, surface: Surface = 'pi'): string {
  if (surface !== 'cli') return message;
  return message
    .replaceAll(`sign in again: ${piRun(name)}`, `sign in again: ${cliAgain(name)}`)
    .replaceAll(piRun(name), signInAdvice(name, 'cli'));
}
