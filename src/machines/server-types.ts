// The server machine's own types: its input, context and events, and its actors' inputs and outputs.
// What code outside src/machines/ reads of a server is in src/ports/server-state.ts.

import type { AnyActorRef } from 'xstate';
import type { SignInIo, SignInResult } from '../auth/port.ts';
import type { TokenStore } from '../auth/token-store.ts';
import type { Lifecycle, ServerDefinition } from '../config/types.ts';
import type { Connection } from '../ports/connection.ts';
import type {
  HostRequests,
  PromptDescriptor,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
  ServerCatalog,
  ToolDescriptor,
} from '../ports/mcp.ts';
import type {
  CatalogList,
  FarEnd,
  HostCopyState,
  KnownCatalog,
  LastFailure,
  ServerError,
  StateVisit,
} from '../ports/server-state.ts';
import type { TraceLog } from '../ports/trace.ts';
import type { SecretValues } from '../redact/index.ts';

/** Where `closing` goes once the connection is closed. */
export type AfterClose = 'closed' | 'backoff' | 'connecting';

export interface ServerInput {
  definition: ServerDefinition;
  generation: number;
  /** The supervisor; receives SERVER.STATUS / SERVER.CATALOG. */
  parentRef?: AnyActorRef;
  connector: Connector;
  /** From the metadata cache: what the server offered last time, before any connect. */
  knownCatalog?: KnownCatalog;
  /** The failure of this server's previous actor (disabled, then enabled): kept until the next try replaces it. */
  lastFailure?: LastFailure;
}

export interface ServerContext {
  name: string;
  definition: ServerDefinition;
  generation: number;
  lifecycle: Lifecycle;
  connector: Connector;
  parentRef?: AnyActorRef;
  knownCatalog?: KnownCatalog;
  /** Consecutive failed attempts; 0 after a successful connect. */
  attempt: number;
  lastError?: ServerError;
  /** The fraction of the backoff ceiling to wait, drawn on entering backoff (full jitter). */
  jitter: number;
  backoffDelayMs?: number;
  /** Epoch ms when backoff ends; display only. */
  nextRetryAt?: number;
  /**
   * The next try the far end set (the shared host's copy: a lost connection's FarEnd, or a failed
   * connect's `retryAt`): the next backoff ends then instead of by this actor's own schedule.
   */
  retryAtGiven?: number;
  stderrTail: string;
  /** What the live server offered at the last connect or refresh. */
  catalog?: ServerCatalog;
  /** The live connection, while `connected` and `closing`. */
  connection?: Connection;
  /** Where `closing` goes next: set by what left `connected`, changed by CLOSE / RETRY / CONNECT meanwhile. */
  afterClose: AfterClose;
  /** Calls bracketed by CALL_STARTED / CALL_FINISHED that have not finished yet. */
  inFlight: number;
  /** The last TRAIL_LENGTH states reported, oldest first (`closing` is passed through, not reported). */
  trail: StateVisit[];
  /** Lists that changed while they were being read: that answer is dropped and they are read again. */
  staleLists: CatalogList[];
  /** How the last sign-in in needs-auth ended; cleared when one starts. Read by those who waited for it. */
  lastSignIn?: SignInResult;
  /**
   * The shared host's copy of this server as the host last pushed it (HOST_STATE), while this actor's
   * connect or connection is attached to it: snapshots carry it, so views react instead of polling.
   */
  hostCopy?: HostCopyState;
}

export type ServerEvent =
  | { type: 'CONNECT' }
  | { type: 'CLOSE' }
  | { type: 'RETRY' }
  | { type: 'AUTHENTICATED' }
  /** Sign in through the auth port while needing auth; `io` shows the URL to the one who asked. */
  | { type: 'SIGN_IN'; io: SignInIo }
  | { type: 'CALL_STARTED' }
  | { type: 'CALL_FINISHED' }
  /** From the connect actor: the server answered initialize; its listings start. */
  | { type: 'LISTING' }
  /** The shared host pushed its copy's state; undefined once this actor is no longer attached to it. */
  | { type: 'HOST_STATE'; copy: HostCopyState | undefined }
  | WatchEvent;

/** What the watcher reports about a live connection. */
export type WatchEvent =
  | { type: 'TRANSPORT_CLOSED'; error?: string; farEnd?: FarEnd }
  | { type: 'TOOLS_CHANGED' }
  | { type: 'RESOURCES_CHANGED' }
  | { type: 'PROMPTS_CHANGED' }
  | { type: 'STDERR'; line: string };

export interface ConnectInput {
  definition: ServerDefinition;
  connector: Connector;
  /** Stderr lines while connecting (afterwards the watcher reports them). */
  onStderr: (line: string) => void;
  /** The server answered initialize; the listing of its tools starts. */
  onListing: () => void;
  /** The shared host's copy changed (for as long as the connection is attached to it). */
  onHostState: (copy: HostCopyState | undefined) => void;
}

export interface WatchInput {
  connection: Connection;
}

export interface CloseInput {
  connection: Connection;
}

/** Input of the sign-in watcher that runs while the server needs auth. */
export interface WatchTokensInput {
  definition: ServerDefinition;
}

/** Input of the sign-in that runs in `needsAuth.signingIn`. */
export interface SignInInput {
  definition: ServerDefinition;
  io: SignInIo;
}

export interface RefreshInput {
  connection: Connection;
  list: CatalogList;
}

export interface PingInput {
  connection: Connection;
}

export type RefreshOutput =
  | { list: 'tools'; tools: ToolDescriptor[] }
  /** `resourceTemplates` is absent when only their listing failed: the old ones are kept. */
  | { list: 'resources'; resources: ResourceDescriptor[]; resourceTemplates?: ResourceTemplateDescriptor[] }
  | { list: 'prompts'; prompts: PromptDescriptor[] };

export interface ConnectOptions {
  signal: AbortSignal;
  /** Answers the server's requests (elicitation, sampling, roots) and takes its log messages. */
  host?: HostRequests;
  /** Called for each stderr line (stdio); used for `debug: true` live output. */
  onStderr?: (line: string) => void;
  /** Called once the server answered initialize, when the listing of its tools (and the rest) starts. */
  onListing?: () => void;
  /**
   * The shared host's copy changed state (src/adapters/host/): called while connecting and for as long
   * as the connection is attached to it, then with undefined.
   */
  onHostState?: (copy: HostCopyState | undefined) => void;
  /** HTTP: the OAuth sign-in store of this host (default: the user's agent dir). */
  tokenStore?: TokenStore;
  /** The runtime's known secrets: secrets learned while connecting (`!command` outputs, command headers) go there. */
  secrets?: SecretValues;
  /** `trace`: where this server's protocol metadata goes (src/adapters/mcp/trace.ts). */
  trace?: TraceLog;
  /** `protocolVersion: "auto"`: the file that remembers each server entry's protocol era. */
  protocolErasFile?: string;
}

/** The adapter's entry point, passed to actors through their input. */
export type Connector = (definition: ServerDefinition, options: ConnectOptions) => Promise<Connection>;
