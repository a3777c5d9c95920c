// A server removed or changed by a config edit: its calls in flight finish, then its connection closes
// (a stdio server's process group ends), then the session hears SERVER.DRAINED and stops the actor (and
// starts a changed one again). With the shared host, the close releases this session's attachment; the
// host's instance ends when no session holds it.

import { fromPromise, waitFor } from 'xstate';
import type { DrainInput } from '../machines/session.machine.ts';
import type { Connection } from '../ports/connection.ts';

export const drainServerLogic = fromPromise<void, DrainInput>(async ({ input }) => {
  const { server, name, generation, parentRef } = input;
  await waitFor(server, (s) => s.status !== 'active' || s.context.inFlight === 0).catch(() => undefined);
  // In the shared host, the instance is let go as retired (closed now if no other session holds it).
  const connection = server.getSnapshot().context?.connection as Connection | undefined;
  connection?.sharedHost?.retire?.();
  server.send({ type: 'CLOSE' });
  await waitFor(server, (s) => s.status !== 'active' || s.hasTag('resting')).catch(() => undefined);
  parentRef.send({ type: 'SERVER.DRAINED', name, generation });
});
