// What a caller (tool executor, ToolSearch, CLI) uses to get a live connection: sends CONNECT and
// waits for the server actor to settle. Callers that arrive while a connect is running share it.
// Never throws: an unavailable server comes back as a typed error whose message says what to do.

import type { ActorRefFrom } from 'xstate';
import { type Surface, signInReason, signInSentence } from '../auth/sign-in-advice.ts';
import { formatElapsed } from '../duration.ts';
import type { serverMachine } from '../machines/server.machine.ts';
import type { ServerContext } from '../machines/server-types.ts';
import type { Connection } from '../ports/connection.ts';
import type { SurfaceWords } from '../ports/surface-words.ts';
import { serverErrorText } from '../server-error-text.ts';
import { wordsFor } from '../tools/surface-words.ts';

export type ServerActorRef = ActorRefFrom<typeof serverMachine>;

export interface ServerUnavailable {
  kind: 'needs-auth' | 'backoff' | 'closed' | 'aborted' | 'disabled';
  server: string;
  /** Actionable: names `/mcp-auth <server>`, or the last error and when the next try is. */
  message: string;
  retryInMs?: number;
  lastError?: string;
  stderrTail?: string;
}

export type EnsureResult = { ok: true; connection: Connection } | { ok: false; error: ServerUnavailable };

type Snapshot = ReturnType<ServerActorRef['getSnapshot']>;

function unavailable(
  context: ServerContext,
  kind: ServerUnavailable['kind'],
  message: string,
  extra: { retryInMs?: number } = {},
): EnsureResult {
  const error: ServerUnavailable = { kind, server: context.name, message, ...extra };
  if (context.lastError) error.lastError = serverErrorText(context.lastError);
  if (context.stderrTail !== '' && kind !== 'aborted') error.stderrTail = context.stderrTail;
  return { ok: false, error };
}

/** Names the reason the connect gave (a refused refresh token, a scope) and this surface's command. */
export function needsAuthText(
  context: Pick<ServerContext, 'name' | 'lastError'>,
  surface: Surface = 'pi',
): string {
  const reason = signInReason(context.lastError && serverErrorText(context.lastError));
  return `MCP server "${context.name}" needs authentication${reason ? `: ${reason}` : ''}. ${signInSentence(context.name, surface)}, then try again.`;
}

function needsAuth(context: ServerContext, surface: Surface | undefined): EnsureResult {
  return unavailable(context, 'needs-auth', needsAuthText(context, surface));
}

function inBackoff(context: ServerContext, words: SurfaceWords): EnsureResult {
  const { name } = context;
  const retryInMs = Math.max(0, (context.nextRetryAt ?? Date.now()) - Date.now());
  const reason = context.lastError ? `: ${serverErrorText(context.lastError)}` : '';
  const next =
    context.lifecycle === 'lazy'
      ? `It can be tried again in ${formatElapsed(retryInMs)}`
      : `The next automatic try is in ${formatElapsed(retryInMs)}`;
  return unavailable(
    context,
    'backoff',
    `MCP server "${name}" failed to connect${reason}. ${next}; ${words.retryNow(name)}.`,
    { retryInMs },
  );
}

function closedWhileWaiting(context: ServerContext, words: SurfaceWords): EnsureResult {
  const reason = context.lastError ? `: ${serverErrorText(context.lastError)}` : '';
  return unavailable(
    context,
    'closed',
    `MCP server "${context.name}" was closed before it finished connecting${reason}. Try again: ${words.retryNow(context.name)}.`,
  );
}

function stopped(context: ServerContext, words: SurfaceWords): EnsureResult {
  return unavailable(
    context,
    'closed',
    `MCP server "${context.name}" is no longer running in this session (the session was restarted or the server was disabled). ${words.seeServers}`,
  );
}

function aborted(context: ServerContext): EnsureResult {
  return unavailable(context, 'aborted', `Connecting to MCP server "${context.name}" was cancelled.`);
}

/** The answer a snapshot gives right now, or undefined while it is still on its way. */
function settledResult(
  snapshot: Snapshot,
  sawConnecting: boolean,
  surface: Surface | undefined,
): EnsureResult | undefined {
  const { context } = snapshot;
  const words = wordsFor(surface);
  if (snapshot.status !== 'active') return stopped(context, words);
  if (snapshot.hasTag('usable'))
    return context.connection ? { ok: true, connection: context.connection } : undefined;
  if (snapshot.hasTag('failsFast'))
    return snapshot.hasTag('needsSignIn') ? needsAuth(context, surface) : inBackoff(context, words);
  // Before our CONNECT was processed this is just the starting point.
  if (snapshot.hasTag('resting')) return sawConnecting ? closedWhileWaiting(context, words) : undefined;
  return undefined;
}

export function ensureConnected(
  actor: ServerActorRef,
  options: { signal?: AbortSignal; surface?: Surface } = {},
): Promise<EnsureResult> {
  const { signal, surface } = options;
  const words = wordsFor(surface);
  const before = actor.getSnapshot();
  if (signal?.aborted) return Promise.resolve(aborted(before.context));
  // connected answers at once; needs-auth and backoff fail fast without sending CONNECT.
  const immediate = settledResult(before, false, surface);
  if (immediate) return Promise.resolve(immediate);

  return new Promise<EnsureResult>((resolve) => {
    let sawConnecting = false;
    let done = false;
    let subscription: { unsubscribe(): void } | undefined;
    const finish = (result: EnsureResult) => {
      if (done) return;
      done = true;
      subscription?.unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const check = (snapshot: Snapshot) => {
      if (snapshot.hasTag('starting')) sawConnecting = true;
      const result = settledResult(snapshot, sawConnecting, surface);
      if (result) finish(result);
    };
    const onAbort = () => finish(aborted(actor.getSnapshot().context));

    signal?.addEventListener('abort', onAbort, { once: true });
    subscription = actor.subscribe({
      next: check,
      error: () => finish(stopped(actor.getSnapshot().context, words)),
      complete: () => finish(stopped(actor.getSnapshot().context, words)),
    });
    if (done) subscription.unsubscribe();
    actor.send({ type: 'CONNECT' });
    if (!done) check(actor.getSnapshot());
  });
}
