// The Connection port: everything the rest of the extension knows about talking to an MCP server.
// Types only. src/adapters/mcp/ implements it with @modelcontextprotocol/client; machine tests provide
// tiny fakes. Nothing here imports the SDK.

import type { TokenStore } from '../../auth/token-store.ts';
import type { ServerDefinition } from '../../config/types.ts';
import type { InstanceState, OthersInFlight } from '../../host/protocol.ts';
import type { FarEnd, HostCopyState } from '../../machines/server.machine.ts';
import type { SecretValues } from '../../redact/index.ts';
import type { TraceLog } from './trace.ts';

export type JsonSchema = Record<string, unknown>;

export interface ToolDescriptor {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: Record<string, unknown>;
}

export interface ResourceDescriptor {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** A resource template (RFC 6570 `uriTemplate`): resources the model reads by filling in variables. */
export interface ResourceTemplateDescriptor {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface PromptDescriptor {
  name: string;
  title?: string;
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: McpContent;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
}

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
}

/** What a successful connect learned about the server. */
export interface ServerCatalog {
  serverInfo?: ServerInfo;
  instructions?: string;
  capabilities: Record<string, unknown>;
  /** The client capabilities we declared for this listing (sorted names): servers vary their tools by them. */
  clientCapabilities?: string[];
  tools: ToolDescriptor[];
  resources: ResourceDescriptor[];
  /** Resource templates, when the server offers resources. */
  resourceTemplates?: ResourceTemplateDescriptor[];
  /** Prompts, when the server offers them. */
  prompts?: PromptDescriptor[];
  /** The transport that worked: `streamable-http` or `sse` for URL servers. */
  transport: 'stdio' | 'streamable-http' | 'sse' | 'socket';
  protocolVersion?: string;
  /** 2026-07-28: how long the server says its tool list stays fresh (tools/list `ttlMs`; 0 = do not reuse). */
  toolsTtlMs?: number;
}

// MCP content blocks, as the server sent them (a structural copy of the spec's types).
export type McpContent =
  | { type: 'text'; text: string; annotations?: Record<string, unknown> }
  | { type: 'image'; data: string; mimeType: string; annotations?: Record<string, unknown> }
  | { type: 'audio'; data: string; mimeType: string; annotations?: Record<string, unknown> }
  | {
      type: 'resource';
      resource: { uri: string; mimeType?: string; text?: string; blob?: string };
      annotations?: Record<string, unknown>;
    }
  | {
      type: 'resource_link';
      uri: string;
      name: string;
      description?: string;
      mimeType?: string;
      annotations?: Record<string, unknown>;
    };

export interface CallToolResult {
  content: McpContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ReadResourceResult {
  contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: string }>;
}

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

export type ConnectErrorKind =
  | 'auth' // 401 / UnauthorizedError: the user must authenticate
  | 'timeout' // startup timeout
  | 'spawn' // the command could not be started
  | 'exited' // the process exited during startup
  | 'protocol' // the server spoke, but not valid MCP
  | 'http' // HTTP status error other than 401
  | 'network' // refused, reset, DNS, TLS
  | 'aborted'
  | 'config';

/** The one error type connect rejects with; `kind` drives the server machine's transitions. */
export class ConnectError extends Error {
  readonly kind: ConnectErrorKind;
  readonly stderrTail?: string;
  readonly status?: number;
  /** Epoch ms of the next try the far end (the shared host's copy) set: the caller's backoff ends then. */
  readonly retryAt?: number;
  constructor(
    kind: ConnectErrorKind,
    message: string,
    extra: { stderrTail?: string; status?: number; retryAt?: number } = {},
  ) {
    super(message);
    this.name = 'ConnectError';
    this.kind = kind;
    if (extra.stderrTail !== undefined) this.stderrTail = extra.stderrTail;
    if (extra.status !== undefined) this.status = extra.status;
    if (extra.retryAt !== undefined) this.retryAt = extra.retryAt;
  }
}

// Requests and notifications a server sends to us, answered by the host (Pi's dialogs and model).
// A capability is declared to the server only when the host gives its handler.

export type ElicitRequest =
  | { mode: 'form'; message: string; requestedSchema: JsonSchema }
  | { mode: 'url'; message: string; url: string; elicitationId: string };

export type ElicitAnswer =
  | { action: 'accept'; content?: Record<string, unknown> }
  | { action: 'decline' }
  | { action: 'cancel' };

export interface Root {
  uri: string;
  name?: string;
}

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

export type SamplingContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string };

export interface SamplingRequest {
  messages: Array<{ role: 'user' | 'assistant'; content: SamplingContent | SamplingContent[] }>;
  systemPrompt?: string;
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
  /** Model names the server prefers, in order (hints; the host may ignore them). */
  modelHints: string[];
}

export interface SamplingAnswer {
  model: string;
  role: 'assistant';
  content: SamplingContent;
  stopReason?: string;
}

/** The host refuses a server request; `message` goes back to the server as the error. */
export class HostRefusal extends Error {
  override name = 'HostRefusal';
}

export interface HostRequests {
  /** elicitation/create (form and URL mode). */
  elicit?(request: ElicitRequest, signal: AbortSignal): Promise<ElicitAnswer>;
  /** sampling/createMessage on the host's model. */
  sample?(request: SamplingRequest, signal: AbortSignal): Promise<SamplingAnswer>;
  /** roots/list. */
  roots?(): Root[];
  /** notifications/message from the server. */
  log?(level: LogLevel, text: string): void;
}

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
