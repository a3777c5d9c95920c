// What a server's actor is, as everyone outside src/machines/ reads it: its state and tags, its
// errors, what it tells its supervisor and listeners. The chart (src/machines/server.machine.ts)
// produces these; the host, /mcp, the CLI and the inspector read them.

import type { ConnectErrorKind, ResourceDescriptor, ServerCatalog, ToolDescriptor } from './mcp.ts';

/** What code outside the machine reads from a snapshot (`snapshot.hasTag`) instead of state names. */
export type ServerTag =
  /** `connected`: the connection in context can take calls. */
  | 'usable'
  /** `connecting`: an attempt is running; callers wait for it. */
  | 'starting'
  /** `connecting.listing`: the server answered initialize and is listing its tools (and the rest). */
  | 'listing'
  /** `needsAuth`, `backoff`: CONNECT is not handled; a caller gets the reason at once. */
  | 'failsFast'
  /** `needsAuth`: only a sign-in (here or anywhere) moves it on. */
  | 'needsSignIn'
  /** `needsAuth.signingIn`: a sign-in runs; whoever else asks waits for its outcome. */
  | 'signingIn'
  /** `backoff`: the last attempt failed; the next one is scheduled. */
  | 'failed'
  /** `closing`: the connection is closing (a stdio server's process group ending). */
  | 'closing'
  /** `init`, `closed`: nothing runs; the next use (CONNECT) starts it. */
  | 'resting';

export type ServerState =
  | 'init'
  | 'connecting'
  | 'connected'
  | 'closing'
  | 'needsAuth'
  | 'backoff'
  | 'closed';

/**
 * Where the far end of a connection went when it ended it: the shared host's copy of the server
 * (src/host/instance.ts), whose state this actor then mirrors. `backoff`: its next try is at `retryAt`
 * (epoch ms), so this actor's is too; `connecting`: it starts again now (a restart), so this actor
 * reconnects at once (and waits for it). `lastError` is the far end's, shown as this actor's.
 * (A copy that needs a sign-in gets there from `connecting`: the attach that follows says so.)
 */
export type FarEnd =
  | { state: 'backoff'; retryAt: number; lastError?: Pick<ServerError, 'kind' | 'detail'> }
  | { state: 'connecting'; lastError?: Pick<ServerError, 'kind' | 'detail'> };

/** What went wrong, as data; src/server-error-text.ts words it (the machine holds no sentences). */
export type ServerErrorDetail =
  /** Connecting failed; `message` is the connection adapter's own wording of the ConnectError. */
  | { cause: 'connect'; message: string }
  | { cause: 'startupTimeout'; ms: number }
  | { cause: 'connectionLost'; reason?: string }
  | { cause: 'healthCheckFailed'; message: string }
  | { cause: 'healthCheckTimeout'; ms: number }
  | { cause: 'refreshFailed'; list: CatalogList; message: string };

export interface ServerError {
  kind: ConnectErrorKind | 'call';
  detail: ServerErrorDetail;
  /** Epoch ms, for display only. */
  at: number;
}

/** A state the server entered, and when (epoch ms, display only). */
export interface StateVisit {
  state: ServerState;
  at: number;
}

export interface KnownCatalog {
  tools: ToolDescriptor[];
  resources: ResourceDescriptor[];
}

/** What a failed server's actor knew of its failure, handed to the next actor of that server. */
export interface LastFailure {
  error: ServerError;
  stderrTail: string;
  attempt: number;
}

export interface ServerStatus {
  name: string;
  generation: number;
  state: ServerState;
  lastError?: ServerError;
}

export interface ServerCatalogUpdate {
  name: string;
  generation: number;
  catalog: ServerCatalog;
}

/** Sent to `parentRef`. */
export type ServerToParentEvent =
  | ({ type: 'SERVER.STATUS' } & ServerStatus)
  | ({ type: 'SERVER.CATALOG' } & ServerCatalogUpdate);

/** Emitted to host listeners (`actor.on(type, ...)`). `stderr` is for `debug: true` live output. */
export type ServerEmitted =
  | ({ type: 'status' } & ServerStatus)
  | ({ type: 'catalog' } & ServerCatalogUpdate)
  | { type: 'stderr'; name: string; generation: number; line: string };

export type CatalogList = 'tools' | 'resources' | 'prompts';

/** The shared host's copy of a server, as the host pushes it (the wire's `InstanceState`), and that host. Display only. */
export interface HostCopyState {
  /** The host process that runs the copy. */
  hostPid: number;
  state: ServerState;
  tags: ServerTag[];
  lastError?: Pick<ServerError, 'kind' | 'detail'>;
  /** Epoch ms of the copy's next try while it is in backoff. */
  nextRetryAt?: number;
  /** The server's process in the host while it runs. */
  pid?: number;
}
