// The MCP SDK adapter: the only module that imports @modelcontextprotocol/sdk. It implements the
// Connection port (./connection-port.ts) for stdio, Streamable HTTP and legacy SSE servers.
//
// Decisions worth knowing:
// - stdio servers run in their own process group (./stdio-process.ts); closing, aborting or a crash
//   ends the whole group, so npx/uvx wrappers leave no grandchildren.
// - Non-JSON lines on a stdio server's stdout (banners, stray console.log) are ignored, not fatal; they
//   are kept in the stderr tail prefixed with `[stdout]` so /mcp can show them.
// - tools/call goes through `client.request` with the plain result schema, not `client.callTool`: the
//   SDK's outputSchema check would turn a server's missing or sloppy structuredContent into a hard
//   failure, and a tool whose schema Ajv cannot compile would break listing. Task-required tools get a
//   clear CallError('unsupported') instead of the SDK's hint at an experimental API.
// - Expired HTTP sessions (404 on a request carrying a session id, or "Server not initialized" /
//   "Session not found") are renewed once, transparently: new transport, new initialize, the rejected
//   request is sent again. If that fails, the connection reports `closed`.

import { statSync } from 'node:fs';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  McpError,
  ReadResourceResultSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerDefinition } from '../config/types.ts';
import { CallError } from './call-error.ts';
import {
  type CallOptions,
  type CallToolResult,
  ConnectError,
  type Connection,
  type ConnectionEvent,
  type ConnectOptions,
  type Connector,
  type McpContent,
  type ReadResourceResult,
  type ResourceDescriptor,
  type ServerCatalog,
  type ToolDescriptor,
} from './connection-port.ts';
import { EventHub } from './event-hub.ts';
import { StderrTail } from './stderr-tail.ts';
import { StdioProcess } from './stdio-process.ts';

export { CallError } from './call-error.ts';

const CLIENT_INFO = { name: 'pi-mcp-actors', version: '0.1.0' };
/** A server that keeps answering with a cursor is cut off here rather than looping forever. */
const MAX_PAGES = 1_000;

export interface McpConnectorOptions {
  /** stdio: after stdin is closed, how long the server may take to exit by itself (default 500 ms). */
  stdinGraceMs?: number;
  /** stdio: after SIGTERM to the process group, how long before SIGKILL (default 2 s). */
  killGraceMs?: number;
  /** HTTP: how long close() waits for the session DELETE (default 500 ms). */
  terminateSessionMs?: number;
}

type TransportKind = ServerCatalog['transport'];

interface Session {
  client: Client;
  transport: Transport;
  kind: TransportKind;
  protocolVersion?: string;
  /** stdio only. */
  process?: StdioProcess;
  /** Replaced by a renewed session or being closed on purpose: its close is not a loss. */
  retired?: boolean;
}

/** Builds a Connector; `connectMcp` is the one with default timings. */
export function createMcpConnector(options: McpConnectorOptions = {}): Connector {
  return (definition, connectOptions) => connect(definition, connectOptions, options);
}

export const connectMcp: Connector = createMcpConnector();

async function connect(
  def: ServerDefinition,
  { signal, onStderr }: ConnectOptions,
  options: McpConnectorOptions,
): Promise<Connection> {
  const tail = new StderrTail();
  const hub = new EventHub();
  const onStderrLine = (line: string) => {
    onStderr?.(line);
    hub.emit({ type: 'stderr', line }, false);
  };
  if (signal.aborted) throw new ConnectError('aborted', `Connecting to "${def.name}" was aborted`);
  const opener = new SessionOpener(def, tail, onStderrLine, hub, options);
  const session = await opener.open(signal);
  try {
    const { catalog, tools } = await loadCatalog(def, session, signal);
    return new McpConnection(def, opener, session, catalog, tools, tail, hub, options);
  } catch (error) {
    await closeSession(session, options, false);
    throw toConnectError(error, def, session.kind, signal, tail, session.process);
  }
}

// ---------------------------------------------------------------------------------------------------
// Opening a session: transport + initialize

class SessionOpener {
  constructor(
    private readonly def: ServerDefinition,
    private readonly tail: StderrTail,
    private readonly onStderrLine: (line: string) => void,
    private readonly hub: EventHub,
    private readonly options: McpConnectorOptions,
  ) {}

  /** Connects with the configured transport; for URL servers, Streamable HTTP falls back to SSE on 404/405. */
  async open(signal: AbortSignal, only?: TransportKind): Promise<Session> {
    const def = this.def;
    if (def.transport === 'stdio') return this.attempt('stdio', signal);
    if (!def.url) throw new ConnectError('config', `Server "${def.name}" has no url`);
    try {
      new URL(def.url);
    } catch {
      throw new ConnectError('config', `Server "${def.name}" has an invalid url`);
    }
    if (only === 'sse' || def.transport === 'sse') return this.attempt('sse', signal);
    try {
      return await this.attempt('streamable-http', signal);
    } catch (error) {
      if (
        only === undefined &&
        error instanceof ConnectError &&
        (error.status === 404 || error.status === 405)
      ) {
        try {
          return await this.attempt('sse', signal);
        } catch (sseError) {
          if (!(sseError instanceof ConnectError) || sseError.kind === 'aborted') throw sseError;
          const message = `${sseError.message} (Streamable HTTP answered HTTP ${error.status}; the SSE fallback failed too)`;
          throw new ConnectError(
            sseError.kind,
            message,
            sseError.status === undefined ? {} : { status: sseError.status },
          );
        }
      }
      throw error;
    }
  }

  private async attempt(kind: TransportKind, signal: AbortSignal): Promise<Session> {
    const def = this.def;
    if (kind === 'stdio' && def.cwd !== undefined && !isDirectory(def.cwd)) {
      throw new ConnectError('config', `Server "${def.name}" has a cwd that is not a directory: ${def.cwd}`);
    }
    const session = this.createSession(kind);
    const { client, transport } = session;
    const onAbort = () => void closeSession(session, this.options, false);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) throw signal.reason;
      await raceAbort(client.connect(transport, { signal, timeout: def.startupTimeoutMs }), signal);
      return session;
    } catch (error) {
      // A process that died while we were talking to it: let its exit be recorded before classifying.
      const timedOut = error instanceof McpError && error.code === ErrorCode.RequestTimeout;
      if (session.process && !signal.aborted && !timedOut) await session.process.waitForExit(250);
      await closeSession(session, this.options, false);
      throw toConnectError(error, def, kind, signal, this.tail, session.process);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private createSession(kind: TransportKind): Session {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      this.hub.emit({ type: 'tools-changed' });
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
      this.hub.emit({ type: 'resources-changed' });
    });
    // Transport hiccups (a dropped GET stream that the SDK retries, an unparsable SSE event) are not
    // fatal; the request that suffers from them rejects on its own.
    client.onerror = () => {};
    const session: Session = { client, kind, transport: undefined as unknown as Transport };
    if (kind === 'stdio') {
      const process = this.createProcess();
      session.process = process;
      session.transport = new GroupStdioTransport(process, (line) => {
        this.tail.addLine(line);
        this.onStderrLine(line);
      });
    } else {
      const url = new URL(this.def.url!);
      const requestInit: RequestInit = { headers: httpHeaders(this.def) };
      session.transport =
        kind === 'sse'
          ? new SSEClientTransport(url, { requestInit })
          : new StreamableHTTPClientTransport(url, { requestInit });
    }
    const transport = session.transport;
    const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version: string) => {
      session.protocolVersion = version;
      setProtocolVersion?.(version);
    };
    return session;
  }

  private createProcess(): StdioProcess {
    const def = this.def;
    if (!def.command) throw new ConnectError('config', `Server "${def.name}" has no command`);
    return new StdioProcess({
      command: def.command,
      args: def.args,
      env: { ...getDefaultEnvironment(), ...def.env },
      ...(def.cwd === undefined ? {} : { cwd: def.cwd }),
      tail: this.tail,
      onStderrLine: this.onStderrLine,
      ...(this.options.stdinGraceMs === undefined ? {} : { stdinGraceMs: this.options.stdinGraceMs }),
      ...(this.options.killGraceMs === undefined ? {} : { killGraceMs: this.options.killGraceMs }),
    });
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function httpHeaders(def: ServerDefinition): Record<string, string> {
  const headers: Record<string, string> = { ...def.headers };
  if (def.bearerToken && (def.auth === 'bearer' || def.auth === undefined)) {
    for (const key of Object.keys(headers)) if (key.toLowerCase() === 'authorization') delete headers[key];
    headers.Authorization = `Bearer ${def.bearerToken}`;
  }
  return headers;
}

/**
 * The SDK Transport over our process-group-aware stdio process.
 *
 * Messages are handed to the SDK one per macrotask: the SDK runs notification handlers in a microtask
 * but settles responses at once, so a progress notification and the response right behind it in the
 * same stdout chunk would otherwise lose the progress (the request is already gone when it runs).
 */
class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private readonly inbox: JSONRPCMessage[] = [];
  private delivering = false;
  private closedAfterInbox = false;

  constructor(
    private readonly process: StdioProcess,
    /** Where non-JSON-RPC stdout lines go (the stderr tail and debug output), prefixed `[stdout]`. */
    private readonly onNoise: (line: string) => void,
  ) {
    process.onLine = (line) => this.receive(line);
    process.onError = (error) => this.onerror?.(error);
    process.onExit = () => {
      // Whatever the server said before it went away is delivered before the close.
      this.closedAfterInbox = true;
      if (!this.delivering) this.onclose?.();
    };
  }

  private deliver(message: JSONRPCMessage): void {
    this.inbox.push(message);
    if (this.delivering) return;
    this.delivering = true;
    setImmediate(() => this.deliverNext());
  }

  private deliverNext(): void {
    const message = this.inbox.shift();
    if (message) this.onmessage?.(message);
    if (this.inbox.length > 0) {
      setImmediate(() => this.deliverNext());
      return;
    }
    this.delivering = false;
    if (this.closedAfterInbox) this.onclose?.();
  }

  async start(): Promise<void> {
    await this.process.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.process.write(serializeMessage(message));
  }

  close(): Promise<void> {
    return this.process.stop({ graceful: true });
  }

  private receive(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.onNoise(`[stdout] ${line}`);
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      this.onNoise(`[stdout] ${line}`);
      return;
    }
    this.deliver(message.data);
  }
}

async function closeSession(
  session: Session,
  options: McpConnectorOptions,
  graceful: boolean,
): Promise<void> {
  if (session.process && !graceful) {
    // Start the hard stop first; the client's close below then joins it.
    const stopped = session.process.stop({ graceful: false });
    await Promise.allSettled([session.client.close(), stopped]);
    return;
  }
  const transport = session.transport;
  if (graceful && transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    await Promise.race([
      transport.terminateSession().catch(() => {}),
      sleep(options.terminateSessionMs ?? 500),
    ]);
  }
  await session.client.close().catch(() => {});
  if (session.process) await session.process.stop({ graceful }).catch(() => {});
}

// ---------------------------------------------------------------------------------------------------
// Catalog

async function loadCatalog(
  def: ServerDefinition,
  session: Session,
  signal: AbortSignal,
): Promise<{ catalog: ServerCatalog; tools: SdkTool[] }> {
  const { client } = session;
  const capabilities = (client.getServerCapabilities() ?? {}) as Record<string, unknown>;
  const requestOptions = { signal, timeout: def.startupTimeoutMs };
  // A server without the tools capability may not answer tools/list at all; one that has it must.
  const tools = capabilities.tools
    ? await listAllTools(client, requestOptions)
    : await listAllTools(client, requestOptions).catch((error) => {
        if (signal.aborted) throw error;
        return [];
      });
  let resources: ResourceDescriptor[] = [];
  if (capabilities.resources) {
    // Tools are what matter; a server whose resources/list fails is still usable.
    resources = await listAllResources(client, requestOptions).catch((error) => {
      if (signal.aborted) throw error;
      return [];
    });
  }
  const info = client.getServerVersion();
  const instructions = client.getInstructions();
  const catalog: ServerCatalog = {
    ...(info
      ? {
          serverInfo: {
            name: info.name,
            version: info.version,
            ...(info.title === undefined ? {} : { title: info.title }),
          },
        }
      : {}),
    ...(instructions === undefined ? {} : { instructions }),
    capabilities,
    tools: tools.map(toToolDescriptor),
    resources,
    transport: session.kind,
    ...(session.protocolVersion === undefined ? {} : { protocolVersion: session.protocolVersion }),
  };
  return { catalog, tools };
}

interface RequestOptions {
  signal?: AbortSignal;
  timeout: number;
}

type SdkTool = Awaited<ReturnType<typeof listAllTools>>[number];

async function listAllTools(client: Client, options: RequestOptions) {
  return paginate(async (cursor) => {
    const page = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      ListToolsResultSchema,
      options,
    );
    return { items: page.tools, nextCursor: page.nextCursor };
  });
}

async function listAllResources(client: Client, options: RequestOptions): Promise<ResourceDescriptor[]> {
  const resources = await paginate(async (cursor) => {
    const page = await client.request(
      { method: 'resources/list', params: cursor === undefined ? {} : { cursor } },
      ListResourcesResultSchema,
      options,
    );
    return { items: page.resources, nextCursor: page.nextCursor };
  });
  return resources.map((resource) => ({
    uri: resource.uri,
    name: resource.name,
    ...(resource.title === undefined ? {} : { title: resource.title }),
    ...(resource.description === undefined ? {} : { description: resource.description }),
    ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }),
  }));
}

async function paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchPage(cursor);
    items.push(...result.items);
    cursor = result.nextCursor;
    // A repeated cursor would loop forever: stop with what we have.
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return items;
}

function toToolDescriptor(tool: SdkTool): ToolDescriptor {
  const descriptor: ToolDescriptor = {
    name: tool.name,
    inputSchema: tool.inputSchema as Record<string, unknown>,
  };
  const title = tool.title ?? tool.annotations?.title;
  if (title !== undefined) descriptor.title = title;
  if (tool.description !== undefined) descriptor.description = tool.description;
  if (tool.outputSchema !== undefined) descriptor.outputSchema = tool.outputSchema as Record<string, unknown>;
  if (tool.annotations !== undefined) descriptor.annotations = tool.annotations as Record<string, unknown>;
  return descriptor;
}

// ---------------------------------------------------------------------------------------------------
// The live connection

class McpConnection implements Connection {
  readonly catalog: ServerCatalog;
  private session: Session;
  private renewing?: Promise<Session>;
  /** Aborted by close(): stops a renewal in progress. */
  private readonly lifetime = new AbortController();
  private closing?: Promise<void>;
  private lostError?: string;
  private readonly taskRequired = new Set<string>();

  constructor(
    private readonly def: ServerDefinition,
    private readonly opener: SessionOpener,
    session: Session,
    catalog: ServerCatalog,
    tools: SdkTool[],
    private readonly tail: StderrTail,
    private readonly hub: EventHub,
    private readonly options: McpConnectorOptions,
  ) {
    this.session = session;
    this.catalog = catalog;
    this.rememberTaskSupport(tools);
    this.watch(session);
  }

  get pid(): number | undefined {
    return this.session.process?.pid;
  }

  onEvent(listener: (event: ConnectionEvent) => void): () => void {
    return this.hub.subscribe(listener);
  }

  stderrTail(): string {
    return this.tail.text();
  }

  async listTools(signal?: AbortSignal): Promise<ToolDescriptor[]> {
    const tools = await this.run('tools/list', signal, (client) =>
      listAllTools(client, this.requestOptions(signal, this.def.requestTimeoutMs)),
    );
    this.rememberTaskSupport(tools);
    return tools.map(toToolDescriptor);
  }

  listResources(signal?: AbortSignal): Promise<ResourceDescriptor[]> {
    return this.run('resources/list', signal, (client) =>
      listAllResources(client, this.requestOptions(signal, this.def.requestTimeoutMs)),
    );
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    if (this.taskRequired.has(name)) {
      throw new CallError(
        'unsupported',
        `Tool "${name}" of server "${this.def.name}" requires task-based execution (execution.taskSupport: "required"), which pi-mcp-actors does not support yet.`,
      );
    }
    const result = await this.run(`tools/call ${name}`, options.signal, (client) =>
      client.request(
        { method: 'tools/call', params: { name, arguments: args } },
        CallToolResultSchema,
        this.callRequestOptions(options),
      ),
    );
    const mapped: CallToolResult = { content: (result.content ?? []) as McpContent[] };
    if (result.structuredContent !== undefined) mapped.structuredContent = result.structuredContent;
    if (result.isError !== undefined) mapped.isError = result.isError;
    return mapped;
  }

  async readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    const result = await this.run(`resources/read ${uri}`, options.signal, (client) =>
      client.request(
        { method: 'resources/read', params: { uri } },
        ReadResourceResultSchema,
        this.callRequestOptions(options),
      ),
    );
    return {
      contents: result.contents.map((item) => ({
        uri: item.uri,
        ...(item.mimeType === undefined ? {} : { mimeType: item.mimeType }),
        ...('text' in item && typeof item.text === 'string' ? { text: item.text } : {}),
        ...('blob' in item && typeof item.blob === 'string' ? { blob: item.blob } : {}),
      })),
    };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.lostError ??= 'closed';
      this.lifetime.abort();
      const renewing = this.renewing;
      if (renewing) await renewing.catch(() => {});
      this.session.retired = true;
      await closeSession(this.session, this.options, true);
    })();
    return this.closing;
  }

  // -------------------------------------------------------------------------------------------------

  private requestOptions(signal: AbortSignal | undefined, timeout: number): RequestOptions {
    return signal === undefined ? { timeout } : { signal, timeout };
  }

  private callRequestOptions(options: CallOptions) {
    const resetTimeoutOnProgress = options.resetTimeoutOnProgress ?? options.onProgress !== undefined;
    const onProgress = options.onProgress;
    return {
      ...this.requestOptions(options.signal, options.timeoutMs ?? this.def.requestTimeoutMs),
      resetTimeoutOnProgress,
      // The SDK only asks for progress when there is a handler; resetting the timeout needs progress.
      ...(onProgress || resetTimeoutOnProgress
        ? {
            onprogress: (progress: { progress: number; total?: number; message?: string }) =>
              onProgress?.({
                progress: progress.progress,
                ...(progress.total === undefined ? {} : { total: progress.total }),
                ...(progress.message === undefined ? {} : { message: progress.message }),
              }),
          }
        : {}),
    };
  }

  private rememberTaskSupport(tools: SdkTool[]): void {
    this.taskRequired.clear();
    for (const tool of tools) {
      if (tool.execution?.taskSupport === 'required') this.taskRequired.add(tool.name);
    }
  }

  /** Runs a request on the current session; an expired HTTP session is renewed once and the request retried. */
  private async run<T>(
    what: string,
    signal: AbortSignal | undefined,
    request: (client: Client) => Promise<T>,
  ): Promise<T> {
    if (signal?.aborted) throw this.toCallError(signal.reason, what, signal);
    if (this.lostError !== undefined) throw this.closedError(what);
    let session = this.renewing ? await this.renewing.catch(() => this.session) : this.session;
    if (this.lostError !== undefined) throw this.closedError(what);
    try {
      return await request(session.client);
    } catch (error) {
      if (signal?.aborted || this.lostError !== undefined) throw this.toCallError(error, what, signal);
      // Expired, or in flight on a session that a concurrent request's renewal has just replaced.
      const replaced = session.retired === true && isConnectionClosed(error);
      if (session.kind !== 'stdio' && (isSessionExpired(error, session) || replaced)) {
        session = await this.renew(session, error, what);
        try {
          return await request(session.client);
        } catch (retryError) {
          throw this.toCallError(retryError, what, signal);
        }
      }
      if (session.kind !== 'stdio' && networkCode(error) === 'ECONNREFUSED') {
        this.lose(session, `connection refused by ${originOf(this.def.url)}`);
      }
      if (isAuthError(error)) {
        // Token expired or revoked: this connection cannot go on; the next connect reports needs-auth.
        const callError = this.toCallError(error, what, signal);
        this.lose(session, `the server asks for authentication (HTTP ${httpStatus(error) ?? 401})`);
        throw callError;
      }
      throw this.toCallError(error, what, signal);
    }
  }

  /** New transport, new initialize; shared by concurrent requests that hit the same expired session. */
  private renew(expired: Session, cause: unknown, what: string): Promise<Session> {
    if (this.session !== expired) return Promise.resolve(this.session);
    if (this.renewing) return this.renewing;
    this.renewing = (async () => {
      expired.retired = true;
      void closeSession(expired, this.options, false);
      try {
        const fresh = await this.opener.open(this.lifetime.signal, expired.kind);
        if (this.lostError !== undefined) {
          await closeSession(fresh, this.options, false);
          throw this.closedError(what);
        }
        this.session = fresh;
        this.watch(fresh);
        // A restarted server may offer different tools: let the owner refresh its catalog.
        this.hub.emit({ type: 'tools-changed' });
        if (this.catalog.capabilities.resources) this.hub.emit({ type: 'resources-changed' });
        return fresh;
      } catch (error) {
        const reason = error instanceof ConnectError ? error.message : describe(error);
        const message = `session expired (${expiryReason(cause)}) and reconnecting failed: ${reason}`;
        this.lose(expired, message);
        if (error instanceof ConnectError && error.kind === 'auth') {
          throw new CallError('auth', this.authMessage(error.status), { cause: error });
        }
        throw new CallError('closed', `Server "${this.def.name}" ${message}`, { cause: error });
      } finally {
        this.renewing = undefined;
      }
    })();
    return this.renewing;
  }

  private watch(session: Session): void {
    session.client.onclose = () => {
      if (session.retired || this.closing || this.lostError !== undefined) return;
      const exit = session.process?.exitInfo;
      this.lose(session, exit ? describeExit(exit.code, exit.signal, this.tail) : 'the transport closed');
    };
  }

  /** Marks the connection as lost (once), tells the owner, and makes sure nothing is left running. */
  private lose(session: Session, error: string): void {
    if (this.lostError !== undefined || this.closing) return;
    this.lostError = error;
    this.hub.emit({ type: 'closed', error });
    void closeSession(session, this.options, false);
  }

  private closedError(what: string): CallError {
    const reason =
      this.lostError === 'closed' || this.lostError === undefined
        ? 'is closed'
        : `is gone: ${this.lostError}`;
    return new CallError('closed', `${what} failed: the connection to "${this.def.name}" ${reason}`);
  }

  private authMessage(status?: number): string {
    const how =
      this.def.auth === 'oauth'
        ? `run /mcp-auth ${this.def.name}`
        : 'check its bearer token / Authorization header';
    return `Server "${this.def.name}" needs authentication${status ? ` (HTTP ${status})` : ''}: ${how}`;
  }

  private toCallError(error: unknown, what: string, signal?: AbortSignal): CallError {
    if (error instanceof CallError) return error;
    if (signal?.aborted) {
      return new CallError('aborted', `${what} on "${this.def.name}" was cancelled`, { cause: error });
    }
    if (this.lostError !== undefined) return this.closedError(what);
    if (isAuthError(error))
      return new CallError('auth', this.authMessage(httpStatus(error)), { cause: error });
    if (error instanceof McpError) {
      if (error.code === ErrorCode.RequestTimeout) {
        return new CallError('timeout', `${what} on "${this.def.name}" timed out`, {
          code: error.code,
          cause: error,
        });
      }
      if (error.code === ErrorCode.ConnectionClosed) {
        const exit = this.session.process?.exitInfo;
        const reason = exit ? describeExit(exit.code, exit.signal, this.tail) : 'the connection closed';
        return new CallError('closed', `${what} failed: "${this.def.name}" ${reason}`, {
          code: error.code,
          cause: error,
        });
      }
      return new CallError('server', `${what} failed: ${stripMcpPrefix(error.message)}`, {
        code: error.code,
        cause: error,
      });
    }
    const status = httpStatus(error);
    if (status !== undefined) {
      return new CallError('http', `${what} failed: HTTP ${status} from "${this.def.name}"`, {
        code: status,
        cause: error,
      });
    }
    if (networkCode(error) !== undefined) {
      return new CallError('network', `${what} failed: ${describe(error)}`, { cause: error });
    }
    if (isValidationError(error)) {
      return new CallError(
        'protocol',
        `${what}: "${this.def.name}" sent an invalid answer: ${describe(error)}`,
        {
          cause: error,
        },
      );
    }
    if (error instanceof Error && error.message === 'Not connected') return this.closedError(what);
    return new CallError('protocol', `${what} failed: ${describe(error)}`, { cause: error });
  }
}

// ---------------------------------------------------------------------------------------------------
// Error classification

function toConnectError(
  error: unknown,
  def: ServerDefinition,
  kind: TransportKind,
  signal: AbortSignal,
  tail: StderrTail,
  process?: StdioProcess,
): ConnectError {
  if (error instanceof ConnectError) return error;
  const stderr = kind === 'stdio' ? { stderrTail: tail.text() } : {};
  const name = def.name;
  if (signal.aborted) return new ConnectError('aborted', `Connecting to "${name}" was aborted`, stderr);
  if (kind === 'stdio') {
    if (process !== undefined && process.pid === undefined) {
      const code = networkCode(error);
      const why =
        code === 'ENOENT'
          ? `command not found: ${def.command} (is it installed and on PATH?)`
          : code === 'EACCES'
            ? `permission denied running ${def.command}`
            : describe(error);
      return new ConnectError('spawn', `Could not start "${name}": ${why}`, stderr);
    }
    const exit = process?.exitInfo;
    if (exit?.unexpected) {
      return new ConnectError(
        'exited',
        `"${name}" ${describeExit(exit.code, exit.signal, tail)} during startup`,
        stderr,
      );
    }
  }
  if (isAuthError(error)) {
    return new ConnectError('auth', `Server "${name}" needs authentication (HTTP 401)`, { status: 401 });
  }
  const status = httpStatus(error);
  if (status !== undefined) {
    return new ConnectError('http', `Server "${name}" answered HTTP ${status}`, { status });
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return new ConnectError('timeout', `"${name}" did not answer within ${def.startupTimeoutMs} ms`, stderr);
  }
  if (kind !== 'stdio' && networkCode(error) !== undefined) {
    return new ConnectError('network', `Cannot reach "${name}": ${describe(error)}`);
  }
  return new ConnectError(
    'protocol',
    `"${name}" did not complete the MCP handshake: ${describe(error)}`,
    stderr,
  );
}

/** Scheme, host and port only: a URL's path or query may carry a token. */
function originOf(url: string | undefined): string {
  try {
    return new URL(url ?? '').origin;
  } catch {
    return 'the server';
  }
}

function expiryReason(error: unknown): string {
  const status = httpStatus(error);
  if (status !== undefined) return `HTTP ${status}`;
  const message = error instanceof Error ? error.message : String(error);
  return /server not initialized/i.test(message) ? 'server not initialized' : 'session not found';
}

function isConnectionClosed(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
}

function isAuthError(error: unknown): boolean {
  return error instanceof UnauthorizedError || httpStatus(error) === 401;
}

function httpStatus(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    return typeof error.code === 'number' && error.code >= 100 && error.code < 600 ? error.code : undefined;
  }
  // SSEClientTransport.send throws a plain Error naming the status.
  const match = error instanceof Error ? /\(HTTP (\d{3})\)/.exec(error.message) : null;
  return match ? Number(match[1]) : undefined;
}

function isSessionExpired(error: unknown, session: Session): boolean {
  const status = httpStatus(error);
  const sessionId = session.transport.sessionId;
  if (status === 404 && (sessionId !== undefined || session.kind === 'sse')) return true;
  const message = error instanceof Error ? error.message : '';
  return /server not initialized|session not found|no valid session|session (?:has )?expired|unknown session|invalid session/i.test(
    message,
  );
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOENT',
  'EACCES',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

/** The system error code of a network or spawn failure, looking through `cause` chains (fetch wraps them). */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Object; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) return 'FETCH_FAILED';
  if (error instanceof SseError && error.code === undefined) return 'SSE_FAILED';
  return undefined;
}

function isValidationError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ZodError' || error.name === '$ZodError');
}

function describeExit(code: number | null, signal: NodeJS.Signals | null, tail: StderrTail): string {
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  const last = tail.lastLine();
  return last ? `${how} (stderr: ${last})` : how;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = networkCode(error);
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    const message = stripMcpPrefix(error.message);
    return code && !message.includes(code) && !cause.includes(code)
      ? `${message}${cause} (${code})`
      : `${message}${cause}`;
  }
  return String(error);
}

function stripMcpPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, '');
}

/** Rejects as soon as the signal aborts, even if `promise` never settles (an SSE start can hang). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
