// The live connection: requests on the current session, expired HTTP sessions renewed once, losses reported.

import { type Client, ProtocolError } from '@modelcontextprotocol/client';
import type { ServerDefinition } from '../../config/types.ts';
import { CallError } from '../../ports/call-error.ts';
import type { CallOptions, Connection, ConnectionEvent } from '../../ports/connection.ts';
import {
  type CallToolResult,
  ConnectError,
  type GetPromptResult,
  type McpContent,
  type PromptDescriptor,
  type ReadResourceResult,
  type ResourceDescriptor,
  type ResourceTemplateDescriptor,
  type ServerCatalog,
  type ToolDescriptor,
} from '../../ports/mcp.ts';
import { needsAuthMessage } from './auth/connect-auth.ts';
import { STREAM_LOST_CODE } from './call-streams.ts';
import {
  CONNECTION_CLOSED_CODE,
  describe,
  describeExit,
  expiryReason,
  httpStatus,
  isAuthError,
  isConnectionClosed,
  isRequestTimeout,
  isSessionExpired,
  isValidationError,
  networkCode,
  originOf,
  REQUEST_TIMEOUT_CODE,
  stripMcpPrefix,
} from './errors.ts';
import type { EventHub } from './event-hub.ts';
import { answerInputRequest } from './host-requests.ts';
import { type AnswerInput, withInputRounds } from './input-rounds.ts';
import {
  listAllPrompts,
  listAllResources,
  listAllResourceTemplates,
  listAllTools,
  type RequestOptions,
  type SdkTool,
  toToolDescriptor,
  withoutUnmirrorableTools,
} from './listing.ts';
import { closeSession, type McpConnectorOptions, type Session, type SessionOpener } from './session.ts';
import type { StderrTail } from './stderr-tail.ts';
import { callAsTask } from './task-call.ts';
import { createdTask, declaringTasks, followExtensionTask, TASK_CREATED_CODE } from './task-extension.ts';
import type { Send } from './task-polling.ts';

export class McpConnection implements Connection {
  readonly catalog: ServerCatalog;
  private session: Session;
  private renewing?: Promise<Session>;
  /** Aborted by close(): stops a renewal in progress. */
  private readonly lifetime = new AbortController();
  private closing?: Promise<void>;
  private lostError?: string;
  /** close() was called on a live connection: the owner ends it, tasks included. */
  private closedByOwner = false;
  /**
   * After an HTTP connection was lost: the next connection to the server, opened for the tasks still
   * followed, which are polled there by their ids. Closed when the last of them ends.
   */
  private taskSession?: Promise<Session>;
  private readonly afterLoss = new AbortController();
  private followers = 0;
  private readonly taskRequired = new Set<string>();
  /** What callTool gives the SDK for the 2026-07-28 `Mcp-Param-*` headers (no outputSchema: see index.ts). */
  private readonly callDefinitions = new Map<string, SdkTool>();

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
    this.rememberTools(tools);
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
    const listed = await this.run('tools/list', signal, (client) =>
      listAllTools(client, this.requestOptions(signal, this.def.requestTimeoutMs)),
    );
    const tools = withoutUnmirrorableTools(listed, this.session, (text) =>
      this.tail.addLine(`[pi-mcp-actors] ${text}`),
    );
    this.rememberTools(tools);
    return tools.map(toToolDescriptor);
  }

  listResources(signal?: AbortSignal): Promise<ResourceDescriptor[]> {
    return this.run('resources/list', signal, (client) =>
      listAllResources(client, this.requestOptions(signal, this.def.requestTimeoutMs)),
    );
  }

  listResourceTemplates(signal?: AbortSignal): Promise<ResourceTemplateDescriptor[]> {
    return this.run('resources/templates/list', signal, (client) =>
      listAllResourceTemplates(client, this.requestOptions(signal, this.def.requestTimeoutMs)),
    );
  }

  listPrompts(signal?: AbortSignal): Promise<PromptDescriptor[]> {
    return this.run('prompts/list', signal, (client) =>
      listAllPrompts(client, this.requestOptions(signal, this.def.requestTimeoutMs)),
    );
  }

  async completePrompt(
    prompt: string,
    argument: { name: string; value: string },
    context: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<string[]> {
    if (!this.catalog.capabilities.completions) return [];
    const result = await this.run(`completion/complete ${prompt}`, signal, (client) =>
      client.request(
        {
          method: 'completion/complete',
          params: { ref: { type: 'ref/prompt', name: prompt }, argument, context: { arguments: context } },
        },
        this.requestOptions(signal, this.def.requestTimeoutMs),
      ),
    );
    return result.completion.values;
  }

  async getPrompt(
    name: string,
    args: Record<string, string>,
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    const result = await this.run(`prompts/get ${name}`, options.signal, (client) =>
      client.request(
        { method: 'prompts/get', params: { name, arguments: args } },
        this.callRequestOptions(options),
      ),
    );
    return {
      ...(result.description === undefined ? {} : { description: result.description }),
      messages: result.messages.map((m) => ({ role: m.role, content: m.content as McpContent })),
    };
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const result =
      this.session.client.getProtocolEra() === 'modern'
        ? await this.callModern(name, args, options)
        : this.taskRequired.has(name)
          ? await this.callAsTask(name, args, options)
          : await this.run(`tools/call ${name}`, options.signal, (client) =>
              client.callTool({ name, arguments: args }, this.toolCallOptions(name, options)),
            );
    const mapped: CallToolResult = { content: (result.content ?? []) as McpContent[] };
    if (result.structuredContent != null) {
      mapped.structuredContent = result.structuredContent as Record<string, unknown>;
    }
    if (result.isError !== undefined) mapped.isError = result.isError;
    return mapped;
  }

  /** A task-required tool on a 2025-11-25 server. */
  private async callAsTask(name: string, args: Record<string, unknown>, options: CallOptions) {
    try {
      return await this.following(() =>
        callAsTask(this.send, this.poll, name, args, this.followOptions(options)),
      );
    } catch (error) {
      throw this.toCallError(error, `tools/call ${name}`, options.signal);
    }
  }

  /** 2026-07-28: any call may come back as a task (the Tasks extension, declared on each call). */
  private async callModern(name: string, args: Record<string, unknown>, options: CallOptions) {
    let task: ReturnType<typeof createdTask>;
    const what = `tools/call ${name}`;
    const answerInput: AnswerInput = (request, signal) =>
      answerInputRequest(this.opener.host, request, signal);
    const callOptions = { ...this.toolCallOptions(name, options), allowInputRequired: true };
    const answer = await withInputRounds(
      what,
      { name, arguments: args, _meta: declaringTasks(this.session.capabilities) },
      (params) =>
        this.run(what, options.signal, (client) =>
          client
            .callTool(params as Parameters<Client['callTool']>[0], callOptions)
            .catch((error: unknown) => {
              task = createdTask(error);
              if (task) return undefined;
              throw error;
            }),
        ),
      answerInput,
      options.signal,
    );
    if (answer) return answer;
    if (!task) throw new CallError('protocol', `tools/call ${name} on "${this.def.name}" got no answer`);
    try {
      const created = task;
      const result = await this.following(() =>
        followExtensionTask(this.poll, name, created, this.followOptions(options), answerInput),
      );
      return result as { content?: unknown[]; structuredContent?: unknown; isError?: boolean };
    } catch (error) {
      throw this.toCallError(error, `tools/call ${name}`, options.signal);
    }
  }

  /** Follows one task; the next connection opened for tasks after a loss lives while any is followed. */
  private async following<T>(follow: () => Promise<T>): Promise<T> {
    this.followers++;
    try {
      return await follow();
    } finally {
      if (--this.followers === 0) this.closeTaskSession();
    }
  }

  private closeTaskSession(): void {
    const opened = this.taskSession;
    this.taskSession = undefined;
    void opened?.then((session) => closeSession(session, this.options, false)).catch(() => {});
  }

  /**
   * A task's request once this connection is lost: on HTTP it goes to the next connection (opened once,
   * shared by the tasks still followed); a failure to reach the server there is a drop the poller may
   * ask again after. A stdio or socket server's tasks cannot be followed elsewhere: the call is told so.
   */
  private async runAfterLoss<T>(
    what: string,
    signal: AbortSignal | undefined,
    request: (client: Client) => Promise<T>,
  ): Promise<T> {
    const kind = this.session.kind;
    if (this.closedByOwner || (kind !== 'streamable-http' && kind !== 'sse')) {
      throw new CallError(
        'closed',
        `${what} failed: the connection to "${this.def.name}" ${this.lostError === 'closed' ? 'is closed' : `is gone: ${this.lostError}`}; its task cannot be followed on another connection${kind === 'stdio' ? " (a stdio server's tasks end with its process)" : ''}`,
      );
    }
    if (!this.taskSession) {
      const opening = this.opener.open(this.afterLoss.signal, kind);
      this.taskSession = opening;
      opening.catch(() => {
        if (this.taskSession === opening) this.taskSession = undefined;
      });
    }
    let session: Session;
    try {
      session = await this.taskSession;
    } catch (error) {
      if (error instanceof ConnectError && error.kind === 'auth')
        throw new CallError('auth', this.authMessage(error.status), { cause: error });
      const reason = error instanceof ConnectError ? error.message : describe(error);
      throw new CallError('network', `${what} on "${this.def.name}": reconnecting failed: ${reason}`, {
        cause: error,
      });
    }
    try {
      return await request(session.client);
    } catch (error) {
      if (isConnectionClosed(error) || networkCode(error) !== undefined) this.closeTaskSession();
      throw this.toCallError(error, what, signal, true);
    }
  }

  private readonly send: Send = (what, signal, request) => this.run(what, signal, request);
  /** A task's polls, which outlive a refused connection. */
  private readonly poll: Send = (what, signal, request) => this.run(what, signal, request, true);

  private toolCallOptions(name: string, options: CallOptions) {
    const toolDefinition = this.callDefinitions.get(name);
    return { ...this.callRequestOptions(options), ...(toolDefinition ? { toolDefinition } : {}) };
  }

  private followOptions(options: CallOptions) {
    return {
      ...(options.signal ? { signal: options.signal } : {}),
      timeout: options.timeoutMs ?? this.def.requestTimeoutMs,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    };
  }

  async readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    const result = await this.run(`resources/read ${uri}`, options.signal, (client) =>
      client.request({ method: 'resources/read', params: { uri } }, this.callRequestOptions(options)),
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

  async ping(signal?: AbortSignal): Promise<void> {
    try {
      await this.run('ping', signal, (client) => {
        const options = this.requestOptions(signal, this.def.requestTimeoutMs);
        // 2026-07-28 has no ping: asking what the server offers proves it alive.
        return client.getProtocolEra() === 'modern' ? client.discover(options) : client.ping(options);
      });
    } catch (error) {
      // A JSON-RPC error answer (e.g. a server without ping) still proves the server is alive.
      if (error instanceof CallError && error.kind === 'server') return;
      throw error;
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.lostError === undefined) {
        this.closedByOwner = true;
        this.afterLoss.abort();
        this.closeTaskSession();
      }
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

  private rememberTools(tools: SdkTool[]): void {
    this.taskRequired.clear();
    this.callDefinitions.clear();
    for (const tool of tools) {
      const { outputSchema: _unchecked, ...definition } = tool;
      this.callDefinitions.set(tool.name, definition);
      if (tool.execution?.taskSupport === 'required') this.taskRequired.add(tool.name);
    }
  }

  /** Runs a request on the current session; an expired HTTP session is renewed once and the request retried. */
  private async run<T>(
    what: string,
    signal: AbortSignal | undefined,
    request: (client: Client) => Promise<T>,
    polling = false,
  ): Promise<T> {
    if (signal?.aborted) throw this.toCallError(signal.reason, what, signal);
    if (this.lostError !== undefined && polling) return this.runAfterLoss(what, signal, request);
    if (this.lostError !== undefined) throw this.closedError(what);
    let session = this.renewing ? await this.renewing.catch(() => this.session) : this.session;
    if (this.lostError !== undefined) throw this.closedError(what);
    try {
      return await request(session.client);
    } catch (error) {
      // The connection was lost under a task's request: ask on the next one.
      if (polling && !signal?.aborted && this.lostError !== undefined)
        return this.runAfterLoss(what, signal, request);
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
      // A task's poll refused is not yet a lost connection: the poller asks again while the call may wait.
      if (session.kind !== 'stdio' && networkCode(error) === 'ECONNREFUSED' && !polling) {
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
        if (this.catalog.capabilities.prompts) this.hub.emit({ type: 'prompts-changed' });
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
      const closed =
        session.kind === 'socket' ? `the socket ${this.def.socket} closed` : 'the transport closed';
      this.lose(session, exit ? describeExit(exit.code, exit.signal, this.tail) : closed);
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
    if (this.session.oauth)
      return needsAuthMessage(this.def, this.session.oauth.signInNeed(), status, this.options.surface);
    return `Server "${this.def.name}" needs authentication${status ? ` (HTTP ${status})` : ''}: check its bearer token / Authorization header`;
  }

  private toCallError(error: unknown, what: string, signal?: AbortSignal, afterLoss = false): CallError {
    if (error instanceof CallError) return error;
    if (signal?.aborted) {
      return new CallError('aborted', `${what} on "${this.def.name}" was cancelled`, { cause: error });
    }
    if (this.lostError !== undefined && !afterLoss) return this.closedError(what);
    if (isAuthError(error))
      return new CallError('auth', this.authMessage(httpStatus(error)), { cause: error });
    if (httpStatus(error) === 403 && this.session.oauth?.signInNeed()?.kind === 'scope') {
      return new CallError('auth', this.authMessage(403), { cause: error });
    }
    if (isRequestTimeout(error)) {
      return new CallError('timeout', `${what} on "${this.def.name}" timed out`, {
        code: REQUEST_TIMEOUT_CODE,
        cause: error,
      });
    }
    if (isConnectionClosed(error)) {
      const exit = this.session.process?.exitInfo;
      const reason = exit ? describeExit(exit.code, exit.signal, this.tail) : 'the connection closed';
      return new CallError('closed', `${what} failed: "${this.def.name}" ${reason}`, {
        code: CONNECTION_CLOSED_CODE,
        cause: error,
      });
    }
    if (error instanceof ProtocolError && error.code === TASK_CREATED_CODE) {
      return new CallError('protocol', `${what}: "${this.def.name}" answered with a task where none can be`, {
        cause: error,
      });
    }
    if (error instanceof ProtocolError && error.code === STREAM_LOST_CODE) {
      return new CallError(
        'dropped',
        `${what} on "${this.def.name}": the connection dropped mid-call, after the server received the request`,
        { code: error.code, cause: error },
      );
    }
    if (error instanceof ProtocolError) {
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
