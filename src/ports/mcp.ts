// What MCP servers offer and send, as data: descriptors, content, results, the server's requests to
// us, and the one error connecting rejects with. A structural copy of the spec's types; no SDK here.

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
