// Opens a connection through the Connector port. Aborted when `connecting` exits (CLOSE, startup
// timeout, actor stopped); a connection that arrives after the abort is closed here, never leaked.

import { fromPromise } from 'xstate';
import type { ConnectInput } from '../machines/server-types.ts';
import type { Connection } from '../ports/connection.ts';
import { ConnectError } from '../ports/mcp.ts';

export const connectLogic = fromPromise<Connection, ConnectInput>(async ({ input, signal }) => {
  let settled = false;
  try {
    const connection = await input.connector(input.definition, {
      signal,
      // After connect the watcher reports stderr; forwarding both would duplicate lines.
      onStderr: (line) => {
        if (!settled && !signal.aborted) input.onStderr(line);
      },
      onListing: () => {
        if (!settled && !signal.aborted) input.onListing();
      },
      // The shared host's pushes go on after the connect, for as long as the connection is attached.
      onHostState: input.onHostState,
    });
    if (signal.aborted) {
      await connection.close().catch(() => undefined);
      throw new ConnectError('aborted', 'connect was cancelled');
    }
    return connection;
  } finally {
    settled = true;
  }
});
