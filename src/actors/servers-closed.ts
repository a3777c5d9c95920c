// The session's shutdown sent CLOSE to its server actors: this resolves once none of them is closing
// any more (every connection's close has ended: no server process outlives the session). A server that
// stops meanwhile counts as closed: its watcher's cleanup closed the connection.

import { type AnyActorRef, fromPromise, waitFor } from 'xstate';
import type { ServersClosedInput } from '../machines/session.machine.ts';

export const serversClosedLogic = fromPromise<void, ServersClosedInput>(async ({ input }) => {
  await Promise.allSettled(
    input.servers.map((ref: AnyActorRef) => waitFor(ref, (s) => !s.hasTag('closing'))),
  );
});
