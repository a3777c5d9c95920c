// What a session is told of the shared host's copy of a server (src/host/): the types the Connection
// port carries. The wire protocol itself is src/host/protocol.ts.

import type { ServerError, ServerState, ServerTag } from './server-state.ts';

/** What an attached session is told of the host's instance actor: its snapshot's state, tags, last error, next try. */
export interface InstanceState {
  state: ServerState;
  tags: ServerTag[];
  lastError?: Pick<ServerError, 'kind' | 'detail'>;
  /** Epoch ms of the actor's next try while it is in backoff. */
  nextRetryAt?: number;
  /** The server's process while it runs (a restarted copy has a new one). */
  pid?: number;
}

/** The other sessions' calls running on an instance (what a restart would cut), and those sessions. */
export interface OthersInFlight {
  calls: number;
  /** The other sessions those calls are from. */
  callers: number;
  /** Other sessions attached to the instance (a restart is seen by all of them). */
  attached: number;
}

/** A copy of one of the session's servers in the shared host. */
export interface SharedCopy {
  state: ServerState;
  /** When the host made it (epoch ms). */
  since?: number;
  hostPid: number;
}
