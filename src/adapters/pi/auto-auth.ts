// `settings.autoAuth` (pi-mcp-adapter's key, same meaning): where Pi can wait for a browser, a tool
// call or a ToolSearch that finds a server waiting for a sign-in runs /mcp-auth's sign-in for it, then
// runs once more. Without a UI (print, JSON mode) or with autoAuth off, the first result stands: its
// error names /mcp-auth <server>.

import type { Runtime } from '../../actors/session-actor.ts';
import type { ToolResult } from '../../tools/executor.ts';
import { usesOAuth } from '../mcp/auth/connect-auth.ts';
import { canWaitForBrowser, signInWithUi } from './auth-command.ts';
import type { PiContext } from './pi-types.ts';

/** A tool call: its server, when the call failed because that server waits for a sign-in. */
export function callWithAutoAuth(
  runtime: Runtime,
  ctx: PiContext | undefined,
  run: () => Promise<ToolResult>,
  signal?: AbortSignal,
): Promise<ToolResult> {
  return withAutoAuth(runtime, ctx, run, signal, (result) => {
    const server = result.details.server;
    return result.isError && typeof server === 'string' ? [server] : [];
  });
}

/** A ToolSearch: every server whose tools are unknown because it waits for a sign-in. */
export function searchWithAutoAuth(
  runtime: Runtime,
  ctx: PiContext | undefined,
  run: () => Promise<ToolResult>,
  signal?: AbortSignal,
): Promise<ToolResult> {
  return withAutoAuth(runtime, ctx, run, signal, () => {
    const catalogs = runtime.actor.getSnapshot().context.catalogs;
    return Object.keys(runtime.servers()).filter((name) => !catalogs[name]);
  });
}

async function withAutoAuth(
  runtime: Runtime,
  ctx: PiContext | undefined,
  run: () => Promise<ToolResult>,
  signal: AbortSignal | undefined,
  candidates: (result: ToolResult) => string[],
): Promise<ToolResult> {
  const first = await run();
  const config = runtime.actor.getSnapshot().context.config;
  if (!ctx || !config?.settings.autoAuth || !canWaitForBrowser(ctx) || signal?.aborted) return first;
  const refs = runtime.servers();
  const waiting = candidates(first).filter((name) => {
    const def = config.servers.find((d) => d.name === name);
    return def !== undefined && usesOAuth(def) && refs[name]?.getSnapshot().hasTag('needsSignIn') === true;
  });
  if (waiting.length === 0) return first;
  // Calls that find the same server waiting share its one sign-in (the server actor's signingIn state).
  for (const server of waiting) {
    const signedIn = await signInWithUi(runtime, server, ctx, signal);
    if (!signedIn.ok) {
      return {
        ...first,
        content: [...first.content, { type: 'text', text: `Automatic sign-in failed: ${signedIn.message}` }],
      };
    }
  }
  return run();
}
