// The Connection port: everything the rest of the extension knows about a live connection to an MCP
// server. Types only. src/adapters/mcp/ implements it with @modelcontextprotocol/client; machine
// tests provide tiny fakes. The Connector that opens one takes a config's ServerDefinition, so it
// is declared with the server machine's input (src/machines/server-types.ts).

import type { InstanceState, OthersInFlight } from './host.ts';
import type {
  CallToolResult,
  GetPromptResult,
  PromptDescriptor,
  ReadResourceResult,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
  ServerCatalog,
  ToolDescriptor,
} from './mcp.ts';
import type { FarEnd } from './server-state.ts';

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Per-request timeout; defaults to the server's requestTimeoutMs. */
  timeoutMs?: number;
  /** Progress notifications restart the timeout (default true when onProgress is given). */
  resetTimeoutOnProgress?: boolean;
  onProgress?: (progress: Progress) => void;
}

/** Events a live connection reports to its owner (the server actor's watcher). */
export type ConnectionEvent =
  /** The connection ended; `farEnd`: where the shared host's copy went, which the owner's actor mirrors. */
  | { type: 'closed'; error?: string; farEnd?: FarEnd }
  | { type: 'tools-changed' }
  | { type: 'resources-changed' }
  | { type: 'prompts-changed' }
  | { type: 'stderr'; line: string };

/** The shared host behind a connection (src/host/): its pid and what it last told of its instance. */
export interface SharedHostView {
  readonly pid: number;
  /** The host's instance actor as last pushed: its state, tags, last error and next try. */
  readonly instance?: InstanceState;
  /**
   * `/mcp reconnect`: asks the host to restart its instance (every session attached to it sees that).
   * Resolves with the other sessions' calls it would cut when the host held back for them (`force`
   * restarts anyway); undefined once it restarted.
   */
  restart?(force?: boolean): Promise<OthersInFlight | undefined>;
  /** A config edit removed or changed the server: this session lets it go, and the host stops it if nobody else holds it. */
  retire?(): void;
}

export interface Connection {
  readonly catalog: ServerCatalog;
  /** Process id of the stdio child, when there is one. */
  readonly pid?: number;
  /** The shared host that runs this server for the session (src/host/); absent when it runs in this process. */
  readonly sharedHost?: SharedHostView;
  listTools(signal?: AbortSignal): Promise<ToolDescriptor[]>;
  listResources(signal?: AbortSignal): Promise<ResourceDescriptor[]>;
  listResourceTemplates(signal?: AbortSignal): Promise<ResourceTemplateDescriptor[]>;
  listPrompts(signal?: AbortSignal): Promise<PromptDescriptor[]>;
  getPrompt(name: string, args: Record<string, string>, options?: CallOptions): Promise<GetPromptResult>;
  /**
   * MCP `completion/complete` for a prompt's argument: the values the server suggests for what is
   * typed so far (`context`: the arguments already given). Empty when the server offers none.
   */
  completePrompt?(
    prompt: string,
    argument: { name: string; value: string },
    context: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<string[]>;
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult>;
  /**
   * MCP ping: resolves when the server answers (an error answer counts: it is alive), rejects when
   * the connection is gone or the request fails. Health checks use it; absent = always healthy.
   */
  ping?(signal?: AbortSignal): Promise<void>;
  /** Subscribe to close / list_changed / stderr; returns the unsubscribe. */
  onEvent(listener: (event: ConnectionEvent) => void): () => void;
  /** The last lines of the server's stderr (bounded). */
  stderrTail(): string;
  /** Closes the transport and, for stdio, ends the whole process group. Idempotent. */
  close(): Promise<void>;
}
