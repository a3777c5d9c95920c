// One session's line to the shared host: the hello, attachments (one per server connection), calls
// with their own ids, progress and cancellation, and the server's questions put to this session.
// Every id here is this client's; the host keeps them apart from other sessions'.

import { connect } from 'node:net';
import { LineChannel } from '../../host/line-channel.ts';
import type {
  ClientMessage,
  HostMessage,
  HostStatus,
  InstanceRequest,
  InstanceState,
  Operation,
  OperationResult,
  OthersInFlight,
  WireError,
} from '../../host/protocol.ts';
import { fromWire, toWire } from '../../host/wire-error.ts';
import type { InspectionRelay } from '../../inspect/deferred.ts';
import type { Surface } from '../../tools/surface-words.ts';
import { inSurfaceWords } from '../mcp/auth/connect-auth.ts';
import { CallError } from '../mcp/call-error.ts';
import type { CallOptions, ConnectionEvent, HostRequests, LogLevel } from '../mcp/connection-port.ts';

/** The host cannot be used (none answers, or one of another version does): the session runs the server itself. */
export class HostUnavailable extends Error {
  override name = 'HostUnavailable';
}

/** Extra time the host gets beyond a call's own timeout before the session gives up on it. */
const HOST_GRACE_MS = 2_000;
const HELLO_TIMEOUT_MS = 5_000;
/** How long a reconnect waits for the host's answer to a restart before it goes on without it. */
const RESTART_ANSWER_MS = 5_000;

/** What the host says of an attachment it made (its `attached` message). */
export type Attached = Omit<Extract<HostMessage, { t: 'attached' }>, 't'>;

interface AttachmentHandlers {
  host: HostRequests | undefined;
  onEvent(event: ConnectionEvent): void;
  /** The host's instance actor changed state. */
  onState(state: InstanceState): void;
}

interface PendingCall {
  a: number;
  resolve(value: OperationResult): void;
  reject(error: Error): void;
  onProgress?: CallOptions['onProgress'];
  /** Restarts the give-up timer (progress with resetTimeoutOnProgress). */
  touch(): void;
}

export class HostClient {
  private nextId = 1;
  private readonly calls = new Map<number, PendingCall>();
  private readonly attaching = new Map<
    number,
    { handlers: AttachmentHandlers; resolve(a: Attached): void; reject(e: Error): void }
  >();
  private readonly attachments = new Map<number, AttachmentHandlers>();
  private readonly asks = new Map<number, AbortController>();
  /** The server of each attachment, for the words of its errors. */
  private readonly servers = new Map<number, string>();
  private readonly statusWaiters: Array<(status: HostStatus) => void> = [];
  /** Restarts asked per attachment, answered in order. */
  private readonly restarting = new Map<number, Array<(held: OthersInFlight | undefined) => void>>();
  private closedListeners: Array<() => void> = [];
  private gone = false;
  private ended = false;
  /** The host answered that it sends this session's instance actors' events. */
  private inspectingReady: (() => void) | undefined;
  private inspectionOff = false;

  private constructor(
    private readonly channel: LineChannel<HostMessage, ClientMessage>,
    readonly hostPid: number,
    readonly version: string,
    private readonly inspection: InspectionRelay | undefined,
    private readonly surface: Surface | undefined,
  ) {}

  /**
   * Connects and greets; rejects with HostUnavailable when nobody answers or the host is another version.
   * With `inspection` on, the host is first asked to send the events of this session's instance actors;
   * `surface` is whose words the host's errors are given in.
   */
  static open(
    socketPath: string,
    version: string,
    label: string,
    { inspection, surface }: { inspection?: InspectionRelay; surface?: Surface } = {},
  ): Promise<HostClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(socketPath);
      let client: HostClient | undefined;
      let settled = false;
      const settle = (error?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) {
          socket.destroy();
          reject(error);
        } else resolve(client!);
      };
      const timer = setTimeout(
        () => settle(new HostUnavailable(`the shared host at ${socketPath} did not answer`)),
        HELLO_TIMEOUT_MS,
      );
      timer.unref();
      socket.once('error', (error) => {
        settle(new HostUnavailable(`no shared host at ${socketPath} (${error.message})`));
      });
      const channel = new LineChannel<HostMessage, ClientMessage>(
        socket,
        (message) => {
          if (client) return client.receive(message);
          if (message.t !== 'welcome')
            return void settle(new HostUnavailable('the shared host did not greet'));
          if (message.version !== version) {
            settle(
              new HostUnavailable(
                `the shared host at ${socketPath} is version ${message.version}, not ${version}: not used`,
              ),
            );
            return;
          }
          client = new HostClient(channel, message.pid, message.version, inspection, surface);
          if (!inspection?.on()) return settle();
          client.inspectingReady = () => settle();
          channel.send({ t: 'inspect', on: true });
        },
        () => {
          if (settled) client?.lost();
          else settle(new HostUnavailable(`the shared host at ${socketPath} closed the connection`));
        },
      );
      socket.once('connect', () => channel.send({ t: 'hello', version, pid: process.pid, label }));
    });
  }

  get open(): boolean {
    return !this.gone;
  }

  get attachmentCount(): number {
    return this.attachments.size + this.attaching.size;
  }

  onClosed(listener: () => void): void {
    this.closedListeners.push(listener);
  }

  attach(request: InstanceRequest, handlers: AttachmentHandlers, signal: AbortSignal): Promise<Attached> {
    if (this.gone) return Promise.reject(new HostUnavailable('the shared host went away'));
    if (signal.aborted) {
      // A session that stopped while its line was opening: the line it opened for this closes.
      if (this.attachmentCount === 0) this.close();
      return Promise.reject(new Error('aborted'));
    }
    const a = this.nextId++;
    this.servers.set(a, request.definition.name);
    return new Promise<Attached>((resolve, reject) => {
      const onAbort = () => {
        this.attaching.delete(a);
        this.servers.delete(a);
        this.channel.send({ t: 'detach', a });
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        // As after a detach: a line with nothing attached closes (an open one holds a CLI open forever).
        if (this.attachmentCount === 0) this.close();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.attaching.set(a, {
        handlers,
        resolve: (attached) => {
          signal.removeEventListener('abort', onAbort);
          this.attachments.set(a, handlers);
          resolve(attached);
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      this.channel.send({ t: 'attach', a, request });
    });
  }

  /** `retire`: the session's config no longer has the server (the host stops it if nobody else holds it). */
  detach(a: number, retire = false): void {
    if (!this.attachments.delete(a)) return;
    this.servers.delete(a);
    this.channel.send({ t: 'detach', a, ...(retire ? { retire } : {}) });
    for (const call of [...this.calls.values()])
      if (call.a === a) call.reject(new CallError('closed', 'The shared server connection was closed.'));
    if (this.attachmentCount === 0) this.close();
  }

  /**
   * Asks the host to restart the instance behind this attachment (`/mcp reconnect`). Resolves with the
   * other sessions' running calls when the host held back for them (`force` restarts anyway); undefined
   * when it restarted, or there was nothing to restart (no attachment, no host, no answer in time).
   */
  restart(a: number, force = false): Promise<OthersInFlight | undefined> {
    if (this.gone || !this.attachments.has(a)) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      // A late answer still takes its place in the queue (a resolved promise ignores it).
      const timer = setTimeout(() => resolve(undefined), RESTART_ANSWER_MS);
      timer.unref();
      const waiting = this.restarting.get(a) ?? [];
      this.restarting.set(a, waiting);
      waiting.push((held) => {
        clearTimeout(timer);
        resolve(held);
      });
      this.channel.send({ t: 'restart', a, ...(force ? { force } : {}) });
    });
  }

  call(
    a: number,
    operation: Operation,
    options: CallOptions & { timeoutMs: number },
  ): Promise<OperationResult> {
    if (this.gone || !this.attachments.has(a))
      return Promise.reject(new CallError('closed', 'The shared server connection is closed.'));
    const id = this.nextId++;
    const { signal, timeoutMs, onProgress } = options;
    if (signal?.aborted) return Promise.reject(new CallError('aborted', 'The call was cancelled.'));
    const reset = options.resetTimeoutOnProgress ?? onProgress !== undefined;
    return new Promise<OperationResult>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = () => {
        clearTimeout(timer);
        this.calls.delete(id);
        signal?.removeEventListener('abort', onAbort);
      };
      const giveUp = () => {
        settle();
        this.channel.send({ t: 'cancel', id });
        reject(
          new CallError('timeout', `The shared MCP host did not answer within ${timeoutMs} ms.`, {
            code: -32001,
          }),
        );
      };
      const touch = () => {
        clearTimeout(timer);
        timer = setTimeout(giveUp, timeoutMs + HOST_GRACE_MS);
        timer.unref();
      };
      const onAbort = () => {
        settle();
        this.channel.send({ t: 'cancel', id });
        reject(new CallError('aborted', 'The call was cancelled.', { code: -32001 }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.calls.set(id, {
        a,
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
        ...(onProgress ? { onProgress } : {}),
        touch: reset ? touch : () => {},
      });
      touch();
      this.channel.send({
        t: 'call',
        id,
        a,
        operation,
        timeoutMs,
        ...(options.resetTimeoutOnProgress === undefined
          ? {}
          : { resetTimeoutOnProgress: options.resetTimeoutOnProgress }),
        progress: onProgress !== undefined,
      });
    });
  }

  status(): Promise<HostStatus> {
    return new Promise((resolve, reject) => {
      if (this.gone) return reject(new HostUnavailable('the shared host went away'));
      this.statusWaiters.push(resolve);
      this.channel.send({ t: 'status' });
    });
  }

  /** An error from the host (worded for Pi) in this session's words. */
  private errorOf(a: number, wire: WireError): Error {
    const error = fromWire(wire);
    const server = this.servers.get(a);
    if (server !== undefined) error.message = inSurfaceWords(error.message, server, this.surface);
    return error;
  }

  /** Ends this client's line (the host then detaches whatever is left). */
  close(): void {
    this.gone = true;
    this.channel.close();
  }

  private receive(message: HostMessage): void {
    switch (message.t) {
      case 'attached': {
        const { a, instance, catalog, pid, stderrTail, state } = message;
        this.attaching
          .get(a)
          ?.resolve({ a, instance, catalog, stderrTail, state, ...(pid === undefined ? {} : { pid }) });
        this.attaching.delete(a);
        return;
      }
      case 'attach-failed':
        this.attaching.get(message.a)?.reject(this.errorOf(message.a, message.error));
        this.attaching.delete(message.a);
        this.servers.delete(message.a);
        if (this.attachmentCount === 0) this.close();
        return;
      case 'result':
        this.calls.get(message.id)?.resolve(message.value);
        return;
      case 'failed': {
        const call = this.calls.get(message.id);
        call?.reject(this.errorOf(call.a, message.error));
        return;
      }
      case 'progress': {
        const call = this.calls.get(message.id);
        call?.touch();
        call?.onProgress?.(message.progress);
        return;
      }
      case 'event':
        this.attachments.get(message.a)?.onEvent(message.event);
        return;
      case 'state':
        (this.attachments.get(message.a) ?? this.attaching.get(message.a)?.handlers)?.onState(message.state);
        return;
      case 'log':
        this.attachments.get(message.a)?.host?.log?.(message.level as LogLevel, message.text);
        return;
      case 'ask':
        return void this.answer(message);
      case 'ask-cancelled':
        this.asks.get(message.ask)?.abort();
        this.asks.delete(message.ask);
        return;
      case 'status':
        this.statusWaiters.shift()?.(message.status);
        return;
      case 'inspecting':
        this.inspectingReady?.();
        this.inspectingReady = undefined;
        return;
      case 'inspect':
        this.relayInspection(message.event);
        return;
      case 'restart-answer': {
        const waiting = this.restarting.get(message.a);
        waiting?.shift()?.(message.held);
        if (waiting?.length === 0) this.restarting.delete(message.a);
        return;
      }
      default:
        return;
    }
  }

  private async answer(message: Extract<HostMessage, { t: 'ask' }>): Promise<void> {
    const host = this.attachments.get(message.a)?.host;
    const controller = new AbortController();
    this.asks.set(message.ask, controller);
    try {
      let value: unknown;
      if (message.kind === 'elicit') {
        if (!host?.elicit) throw new Error('This session does not answer elicitation.');
        value = await host.elicit(message.request, controller.signal);
      } else {
        if (!host?.sample) throw new Error('This session does not answer sampling.');
        value = await host.sample(message.request, controller.signal);
      }
      if (!controller.signal.aborted) this.channel.send({ t: 'answer', ask: message.ask, value });
    } catch (error) {
      if (!controller.signal.aborted)
        this.channel.send({ t: 'answer', ask: message.ask, error: toWire(error) });
    } finally {
      this.asks.delete(message.ask);
    }
  }

  /** An instance actor's inspection event: to this session's inspection while it is on; off, the host is told once. */
  private relayInspection(event: Record<string, unknown>): void {
    if (this.inspection?.on()) {
      this.inspection.relay(event);
      return;
    }
    if (this.inspectionOff || this.gone) return;
    this.inspectionOff = true;
    this.channel.send({ t: 'inspect', on: false });
  }

  /** The host's socket closed: every call fails now, every attachment hears that its connection is gone. */
  private lost(): void {
    if (this.ended) return;
    this.ended = true;
    this.gone = true;
    const why = `the shared MCP host (pid ${this.hostPid}) went away`;
    for (const call of [...this.calls.values()])
      call.reject(
        new CallError(
          'dropped',
          `The call failed: ${why} mid-call; the server may have run it. The next call starts a new host.`,
        ),
      );
    for (const pending of [...this.attaching.values()]) pending.reject(new HostUnavailable(why));
    this.attaching.clear();
    for (const handlers of [...this.attachments.values()])
      handlers.onEvent({ type: 'closed', error: `${why}` });
    this.attachments.clear();
    for (const controller of this.asks.values()) controller.abort();
    for (const waiting of this.restarting.values()) for (const answered of waiting) answered(undefined);
    this.restarting.clear();
    for (const listener of this.closedListeners.splice(0)) listener();
  }
}
