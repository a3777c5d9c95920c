// /mcp reconnect and the panel's `r`: this session's actors close and connect again. A server the shared
// host runs is restarted there first (every session attached to it sees that: docs/shared-host.md), so
// the reconnect attaches to a fresh copy instead of the one it left.

import type { Runtime } from '../actors/session-actor.ts';
import { sharedHostOf } from './server-status.ts';

export function requestReconnect(runtime: Runtime, server?: string): void {
  const servers = runtime.servers();
  for (const name of server ? [server] : Object.keys(servers)) {
    const ref = servers[name];
    if (ref) sharedHostOf(ref)?.restart?.();
  }
  runtime.actor.send(server ? { type: 'RECONNECT', server } : { type: 'RECONNECT' });
}
