// `pi-mcp-actors login <server>` / `logout <server>`: OAuth sign-in outside Pi, into the same store
// every Pi session watches (a session waiting in needs-auth connects by itself afterwards).

import type { Runtime } from '../actors/session-actor.ts';
import { usesOAuth } from '../adapters/mcp/auth/connect-auth.ts';
import type { AuthPort } from '../auth/port.ts';
import { didYouMean } from '../config/suggest.ts';
import { unreadableText } from '../config/unreadable.ts';

export interface AuthCliIo {
  out(text: string): void;
  err(text: string): void;
  /** Reads one line typed or piped in; resolves undefined when aborted or at the end of the input. */
  promptLine?(question: string, signal: AbortSignal): Promise<string | undefined>;
}

function serverDefinition(runtime: Runtime, name: string | undefined, io: AuthCliIo) {
  const servers = runtime.actor.getSnapshot().context.config?.servers ?? [];
  const def = name ? servers.find((d) => d.name === name) : undefined;
  if (!def) {
    const names = servers.map((d) => d.name);
    const guess = name ? didYouMean(name, names) : undefined;
    const signIn = servers.filter(usesOAuth).map((d) => d.name);
    const which =
      signIn.length > 0
        ? `Servers that sign in: ${signIn.join(', ')}.`
        : names.length > 0
          ? `None of the configured servers (${names.join(', ')}) signs in with OAuth.`
          : 'No servers are configured.';
    io.err(
      [
        name ? `Unknown or disabled server "${name}".` : 'Name the server: login <server> / logout <server>.',
        guess,
        which,
        unreadableText(runtime.actor.getSnapshot().context.config?.diagnostics),
      ]
        .filter(Boolean)
        .join(' '),
    );
  }
  return def;
}

export async function login(runtime: Runtime, server: string | undefined, io: AuthCliIo): Promise<number> {
  if (!serverDefinition(runtime, server, io)) return 2;
  const result = await runtime.signIn(server!, {
    showUrl: (url, opened) => {
      io.err(`Open this URL to sign in to ${server}${opened ? ' (opened in your browser)' : ''}:`);
      io.err(url);
      io.err(
        'Waiting for the browser to come back; if it cannot reach this machine, paste the URL it was redirected to.',
      );
    },
    ...(io.promptLine ? { pasteRedirectUrl: (signal: AbortSignal) => pastedUrl(io, signal) } : {}),
  });
  (result.ok ? io.out : io.err)(result.message);
  return result.ok ? 0 : 1;
}

/** The first line that reads as a URL; anything else is answered and asked again. */
async function pastedUrl(io: AuthCliIo, signal: AbortSignal): Promise<string | undefined> {
  for (;;) {
    const line = (await io.promptLine!('Redirect URL: ', signal))?.trim();
    if (line === undefined || signal.aborted) return undefined;
    if (URL.canParse(line)) return line;
    if (line) io.err('That is not a URL: paste the whole address the browser shows, starting with http.');
  }
}

export async function logout(
  runtime: Runtime,
  auth: AuthPort,
  server: string | undefined,
  io: AuthCliIo,
): Promise<number> {
  const def = serverDefinition(runtime, server, io);
  if (!def) return 2;
  const result = await auth.signOut(def);
  (result.ok ? io.out : io.err)(result.message);
  return result.ok ? 0 : 1;
}
