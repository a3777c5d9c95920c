// /mcp-auth <server> in Pi: OAuth sign-in through the runtime's one entry point. The authorization URL
// is shown in full (and opened when there is a browser); the loopback callback and a "paste the URL
// you were redirected to" prompt race, so it works over SSH too. Print and JSON modes cannot wait for
// a browser: they say what to run instead.

import type { Runtime } from '../../actors/session-actor.ts';
import type { SignInResult } from '../../auth/port.ts';
import { runMcpAuthCommand } from '../../commands/mcp-command.ts';
import { usesOAuth } from '../mcp/auth/connect-auth.ts';
import type { PiContext } from './pi-types.ts';

export async function runAuthCommand(args: string, runtime: Runtime, ctx: PiContext): Promise<string> {
  const server = args.trim();
  const def = server
    ? runtime.actor.getSnapshot().context.config?.servers.find((d) => d.name === server)
    : undefined;
  if (!def || !usesOAuth(def)) return runMcpAuthCommand(args, runtime);
  if (!canWaitForBrowser(ctx)) {
    return `${server}: signing in needs a browser, and ${ctx.mode ?? 'this'} mode cannot wait for one. Run \`npx pi-mcp-actors login ${server}\` in a terminal (or /mcp-auth ${server} in interactive Pi); running sessions pick the sign-in up by themselves.`;
  }
  const result = await signInWithUi(runtime, server, ctx);
  // A server with no OAuth settings that turns out not to speak OAuth (a plain 401): retry it with
  // its configured credentials, as for any static-token server.
  const implicit = def.auth !== 'oauth' && def.oauth === undefined;
  if (!result.ok && implicit) return runMcpAuthCommand(args, runtime);
  return result.message;
}

/** Pi can show the URL and wait for the browser (interactive and RPC; not print or JSON mode). */
export function canWaitForBrowser(ctx: PiContext): boolean {
  return ctx.hasUI && ctx.mode !== 'print' && ctx.mode !== 'json';
}

/** The sign-in of /mcp-auth: the URL in a notification, the loopback racing a pasted redirect URL. */
export function signInWithUi(
  runtime: Runtime,
  server: string,
  ctx: PiContext,
  signal?: AbortSignal,
): Promise<SignInResult> {
  const ui = ctx.ui;
  return runtime.signIn(server, {
    ...(signal ? { signal } : {}),
    showUrl: (url, opened) =>
      ui.notify(
        `Sign in to ${server}${opened ? ' (opened in your browser)' : ''}:\n${url}\nIf your browser cannot reach this machine (SSH), paste the URL it was redirected to.`,
        'info',
      ),
    ...(ui.input
      ? {
          pasteRedirectUrl: (signal: AbortSignal) =>
            ui.input!(
              'Paste the URL you were redirected to (or wait for the browser)',
              'http://127.0.0.1:…/callback?code=…',
              {
                signal,
              },
            ),
        }
      : {}),
  });
}
