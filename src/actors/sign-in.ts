// The one sign-in entry point of a session (/mcp-auth, the CLI, a TUI key): signs in through the auth
// port, then lets the server actor connect with the new tokens.

import { waitFor } from 'xstate';
import type { AuthPort, SignInIo, SignInResult } from '../auth/port.ts';
import type { Surface } from '../auth/sign-in-advice.ts';
import type { ServerDefinition } from '../config/types.ts';
import type { ServerActorRef } from './ensure-connected.ts';
import { describeServers } from './server-status.ts';

export async function signInAndConnect(
  auth: AuthPort | undefined,
  def: ServerDefinition | undefined,
  ref: ServerActorRef | undefined,
  io: SignInIo,
  surface?: Surface,
): Promise<SignInResult> {
  if (!def) return { ok: false, message: 'Unknown server.' };
  if (!auth) return { ok: false, message: `${def.name}: sign-in is not available here.` };
  const result = await auth.signIn(def, io);
  if (!result.ok || !ref) return result;
  // The store watcher wakes a needs-auth actor by itself; this makes it immediate.
  ref.send({ type: 'AUTHENTICATED' });
  await waitFor(ref, (s) => !s.matches('connecting'), { timeout: def.startupTimeoutMs + 1_000 }).catch(
    () => undefined,
  );
  return {
    ok: true,
    message: `${result.message}\n${describeServers({ [def.name]: ref }, surface ? { surface } : {})}`,
  };
}
