// The one sign-in entry point of a session (/mcp-auth, the CLI, a TUI key, autoAuth). A server that
// needs auth signs in as a state of its own actor (`needsAuth.signingIn`): whoever asks while one
// runs waits for that one and reads its outcome from the snapshot (one browser tab, not one per
// caller). A server in any other state (not started yet, connected) is signed in beside its actor,
// which then keeps its state.

import { fromPromise, waitFor } from 'xstate';
import type { AuthPort, SignInIo, SignInResult } from '../auth/port.ts';
import type { Surface } from '../auth/sign-in-advice.ts';
import { describeServers } from '../commands/server-status.ts';
import type { ServerDefinition } from '../config/types.ts';
import type { SignInInput } from '../machines/server-types.ts';
import type { SecretValues } from '../redact/index.ts';
import type { ServerActorRef } from '../session/ensure-connected.ts';

/** The `signIn` actor of the server machine: the auth port's sign-in, aborted when the state is left. */
export function signInLogic(auth: Pick<AuthPort, 'signIn'>) {
  return fromPromise<SignInResult, SignInInput>(({ input, signal }) => {
    const { io, definition } = input;
    return auth.signIn(definition, {
      ...io,
      signal: io.signal ? AbortSignal.any([io.signal, signal]) : signal,
    });
  });
}

export async function signInAndConnect(
  auth: Pick<AuthPort, 'signIn'> | undefined,
  def: ServerDefinition | undefined,
  ref: ServerActorRef | undefined,
  io: SignInIo,
  secrets: SecretValues,
  surface?: Surface,
): Promise<SignInResult> {
  if (!def) return { ok: false, message: 'Unknown server.' };
  if (!auth) return { ok: false, message: `${def.name}: sign-in is not available here.` };
  const result =
    ref?.getSnapshot().hasTag('needsSignIn') === true
      ? await signInAsState(ref, io)
      : await signInBeside(auth, def, ref, io);
  if (!result.ok || !ref) return result;
  await waitFor(ref, (s) => !s.hasTag('starting'), { timeout: def.startupTimeoutMs + 1_000 }).catch(
    () => undefined,
  );
  return {
    ok: true,
    message: `${result.message}\n${describeServers({ [def.name]: ref }, surface ? { secrets, surface } : { secrets })}`,
  };
}

/** Starts the actor's sign-in, or joins the one it runs, and reads how it ended. */
async function signInAsState(ref: ServerActorRef, io: SignInIo): Promise<SignInResult> {
  const { name } = ref.getSnapshot().context;
  if (!ref.getSnapshot().hasTag('signingIn')) ref.send({ type: 'SIGN_IN', io });
  const cancelled = { ok: false, message: `${name}: the sign-in was cancelled.` };
  if (!ref.getSnapshot().hasTag('signingIn')) return cancelled;
  try {
    const ended = await waitFor(ref, (s) => !s.hasTag('signingIn'), io.signal ? { signal: io.signal } : {});
    return ended.context.lastSignIn ?? cancelled;
  } catch {
    // This caller gave up, or the session stopped the server.
    return cancelled;
  }
}

async function signInBeside(
  auth: Pick<AuthPort, 'signIn'>,
  def: ServerDefinition,
  ref: ServerActorRef | undefined,
  io: SignInIo,
): Promise<SignInResult> {
  const result = await auth.signIn(def, io);
  // It may have come to need auth meanwhile: the store watcher would wake it, this is at once.
  if (result.ok) ref?.send({ type: 'AUTHENTICATED' });
  return result;
}
