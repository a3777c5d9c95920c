// A Connection (the port in ../../ports/connection.ts) whose server runs in the shared host: each
// request goes over this session's line to the host and only its own answer, progress and events
// come back. Closing it detaches this session; the host keeps the server warm for the next one.

import type { ServerDefinition } from '../../config/types.ts';
import type { Operation } from '../../host/protocol.ts';
import type { CallOptions, Connection, ConnectionEvent, SharedHostView } from '../../ports/connection.ts';
import type { InstanceState } from '../../ports/host.ts';
import type {
  CallToolResult,
  GetPromptResult,
  LogLevel,
  PromptDescriptor,
  ReadResourceResult,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
  ServerCatalog,
  ToolDescriptor,
} from '../../ports/mcp.ts';
import type { Attached, HostClient } from './host-client.ts';

const TAIL_LINES = 50;

export class HostConnection implements Connection {
  readonly catalog: ServerCatalog;
  /** The host's instance key (for status and tests). */
  readonly instance: string;
  private readonly listeners = new Set<(event: ConnectionEvent) => void>();
  private readonly tail: string[];
  private knownPid: number | undefined;
  private closed = false;

  /**
   * `onState` hears each state the host pushes of its instance (the session's server actor keeps it
   * in its snapshot, as HOST_STATE), and undefined when this connection ends.
   */
  constructor(
    private readonly host: HostClient,
    private readonly attached: Attached,
    private readonly definition: ServerDefinition,
    private readonly onState: (state: InstanceState | undefined) => void = () => {},
  ) {
    this.catalog = attached.catalog;
    this.instance = attached.instance;
    this.knownPid = attached.state.pid ?? attached.pid;
    this.tail = attached.stderrTail === '' ? [] : attached.stderrTail.split('\n');
  }

  /**
   * An event of the host's instance (list_changed, stderr, its end). At its end the host has already
   * let this attachment go (the end says where the instance went, for the session's actor to mirror),
   * so this side lets it go too.
   */
  receive(event: ConnectionEvent): void {
    if (event.type === 'stderr') this.addToTail(event.line);
    for (const listener of this.listeners) listener(event);
    if (event.type === 'closed') void this.close();
  }

  /** A log message of the server: it joins the stderr tail (what /mcp shows), as in a session. */
  logged(level: LogLevel, text: string): void {
    this.addToTail(`[log ${level}] ${text}`);
  }

  private addToTail(line: string): void {
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) this.tail.splice(0, this.tail.length - TAIL_LINES);
  }

  /** The host (its instance's state is in the session actor's snapshot, `hostCopy`). */
  get sharedHost(): SharedHostView {
    return {
      pid: this.host.hostPid,
      restart: (force) => this.host.restart(this.attached.a, force),
      retire: () => this.host.detach(this.attached.a, true),
    };
  }

  /** The server's process in the host: the running copy's, a restarted one's after a restart. */
  get pid(): number | undefined {
    return this.knownPid;
  }

  /** The host's instance actor changed state. */
  receiveState(state: InstanceState): void {
    if (state.pid !== undefined) this.knownPid = state.pid;
    this.onState(state);
  }

  private run<T>(operation: Operation, options: CallOptions = {}): Promise<T> {
    return this.host.call(this.attached.a, operation, {
      ...options,
      timeoutMs: options.timeoutMs ?? this.definition.requestTimeoutMs,
    }) as Promise<T>;
  }

  listTools(signal?: AbortSignal): Promise<ToolDescriptor[]> {
    return this.run({ op: 'listTools' }, signal ? { signal } : {});
  }
  listResources(signal?: AbortSignal): Promise<ResourceDescriptor[]> {
    return this.run({ op: 'listResources' }, signal ? { signal } : {});
  }
  listResourceTemplates(signal?: AbortSignal): Promise<ResourceTemplateDescriptor[]> {
    return this.run({ op: 'listResourceTemplates' }, signal ? { signal } : {});
  }
  listPrompts(signal?: AbortSignal): Promise<PromptDescriptor[]> {
    return this.run({ op: 'listPrompts' }, signal ? { signal } : {});
  }
  getPrompt(name: string, args: Record<string, string>, options?: CallOptions): Promise<GetPromptResult> {
    return this.run({ op: 'getPrompt', name, args }, options);
  }
  completePrompt(
    prompt: string,
    argument: { name: string; value: string },
    context: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<string[]> {
    return this.run({ op: 'completePrompt', prompt, argument, context }, signal ? { signal } : {});
  }
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult> {
    return this.run({ op: 'callTool', name, args }, options);
  }
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return this.run({ op: 'readResource', uri }, options);
  }
  async ping(signal?: AbortSignal): Promise<void> {
    await this.run({ op: 'ping' }, signal ? { signal } : {});
  }

  onEvent(listener: (event: ConnectionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stderrTail(): string {
    return this.tail.join('\n');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.host.detach(this.attached.a);
    this.onState(undefined);
  }
}
