// /mcp reconnect and the panel's `r`: this session's actors close and connect again. A server the shared
// host runs is restarted there first (every session attached to it sees that: docs/shared-host.md), so
// the reconnect attaches to a fresh copy instead of the one it left. A restart never cuts another
// session's running calls without the user's word: the host holds back and says how many run, the user
// is asked (yes: restart anyway; no: nothing restarts), and where nobody can be asked it is refused.
// The words of that rule live here.

import type { Runtime } from '../actors/session-actor.ts';
import type { OthersInFlight } from '../ports/host.ts';
import { sharedHostOf } from './server-status.ts';

export interface ReconnectOptions {
  /** Restart a shared server even over other sessions' running calls (`/mcp reconnect --force`). */
  force?: boolean;
  /** Asks the user a yes/no question; absent where nobody can answer (print, RPC without a UI). */
  confirm?: (question: string) => Promise<boolean>;
}

/** A shared server left running because a restart would have cut other sessions' calls. */
export interface KeptServer {
  server: string;
  /** Why, and what the user can do (the command's answer). */
  text: string;
}

/**
 * Reconnects `server` (else every server). Servers not shared are sent RECONNECT at once (before this
 * returns its promise); shared ones once the host restarted them, or the user agreed to cut the other
 * sessions' calls. Resolves with the servers left running.
 */
export async function requestReconnect(
  runtime: Runtime,
  server?: string,
  options: ReconnectOptions = {},
): Promise<KeptServer[]> {
  const servers = runtime.servers();
  const names = server ? [server] : Object.keys(servers);
  const shared = names.flatMap((name) => {
    const ref = servers[name];
    const host = ref ? sharedHostOf(ref) : undefined;
    return host?.restart ? [{ name, restart: host.restart.bind(host) }] : [];
  });
  if (shared.length === 0) {
    runtime.actor.send(server ? { type: 'RECONNECT', server } : { type: 'RECONNECT' });
    return [];
  }
  for (const name of names)
    if (!shared.some((s) => s.name === name)) runtime.actor.send({ type: 'RECONNECT', server: name });
  const kept: KeptServer[] = [];
  // One at a time: the user answers one question at a time.
  for (const { name, restart } of shared) {
    const held = await restart(options.force);
    if (held) {
      const agreed = options.confirm ? await options.confirm(restartQuestion(name, held)) : false;
      if (!agreed) {
        kept.push({ server: name, text: options.confirm ? declinedText(name) : refusedText(name, held) });
        continue;
      }
      await restart(true);
    }
    runtime.actor.send({ type: 'RECONNECT', server: name });
  }
  return kept;
}

/** "2 calls from another Pi session". */
function callsOfOthers(held: OthersInFlight): string {
  const calls = held.calls === 1 ? '1 call' : `${held.calls} calls`;
  const from = held.callers === 1 ? 'another Pi session' : `${held.callers} other Pi sessions`;
  return `${calls} from ${from}`;
}

/** The question put to the user before a restart cuts other sessions' calls. */
export function restartQuestion(server: string, held: OthersInFlight): string {
  const [is, them] = held.calls === 1 ? ['is', 'it'] : ['are', 'them'];
  const also = held.attached > held.callers ? ` (${held.attached} other sessions use it)` : '';
  return `${callsOfOthers(held)} ${is} running on "${server}" in the shared host${also}; restarting it cuts ${them}. Restart anyway?`;
}

/** The user said no. */
function declinedText(server: string): string {
  return `"${server}" was not restarted: the other sessions' calls on it keep running.`;
}

/** Nobody to ask (no UI): not restarted, and how to get it done. */
function refusedText(server: string, held: OthersInFlight): string {
  const [is, them] = held.calls === 1 ? ['is', 'it'] : ['are', 'them'];
  return (
    `"${server}" was not restarted: ${callsOfOthers(held)} ${is} running on it in the shared host, and a restart would cut ${them}. ` +
    `Wait for ${them} to finish and run /mcp reconnect ${server} again, or run /mcp reconnect ${server} --force to cut ${them}; ` +
    `a server whose calls no other session may cut can be set to "share": "session".`
  );
}
