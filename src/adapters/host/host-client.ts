// One session's line to the shared host: the hello, attachments (one per server connection), calls
// with their own ids, progress and cancellation, and the server's questions put to this session.
// Every id here is this client's; the host keeps them apart from other sessions'.

import { connect } from 'node:net';
import { createActor } from 'xstate';
import { unrefClock } from '../../actors/unref-clock.ts';
import { hostProof, newNonce, proofMatches, sessionProof } from '../../host/host-key.ts';
import { LineChannel } from '../../host/line-channel.ts';
import {
  type ClientMessage,
  type HostMessage,
  type HostStatus,
  type InstanceRequest,
  type Operation,
  type OperationResult,
  WIRE_PROTOCOL,
  type WireError,
} from '../../host/protocol.ts';
import { fromWire, toWire } from '../../host/wire-error.ts';
import type { InspectionRelay } from '../../inspect/deferred.ts';
import { type HostLinkEvent, hostLinkMachine, type LinkFailure } from '../../machines/host-link.machine.ts';
import { CallError } from '../../ports/call-error.ts';
import type { CallOptions, ConnectionEvent } from '../../ports/connection.ts';
import type { InstanceState, OthersInFlight } from '../../ports/host.ts';
import type { HostRequests, LogLevel } from '../../ports/mcp.ts';
import type { Surface } from '../../ports/surface-words.ts';
import { inSurfaceWords } from '../mcp/auth/connect-auth.ts';
import { CALL_GRACE_MS, RESTART_ANSWER_MS } from './link-deadlines.ts';

/**
 * Why the host cannot be used: the link's failures (src/machines/host-link.machine.ts: `absent` means
 * one can be started), `no-agent-dir` (there is none: nothing to say) and `refused` (its folder, key
 * or socket is not the user's alone).
 */
export type Unavailability = LinkFailure | 'no-agent-dir' | 'refused';

/** The host cannot be used: the session runs the server itself. */
export class HostUnavailable extends Error {
  override name = 'HostUnavailable';
  constructor(
    message: string,
    readonly why: Unavailability = 'gone',
  ) {
    super(message);
  }
}

/** What a session needs to greet its host: its build, the key both prove, and how it is listed. */
export interface Greeting {
  build: string;
  key: Buffer;
  label: string;
  inspection?: InspectionRelay;
  surface?: Surface;
}

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
   * Connects and greets; rejects with HostUnavailable when nobody answers in time, or something answers
   * that is not this build's host proving the key. Nothing but the hello (protocol, build, pid, label, a
   * nonce) is sent before the host's proof is checked. With `inspection` on, the host is then asked to
   * send the events of this session's instance actors; `surface` is whose words its errors are given in.
   */
  static open(socketPath: string, greeting: Greeting): Promise<HostClient> {
    const { build, key, label, inspection, surface } = greeting;
    return new Promise((resolve, reject) => {
      const nonce = newNonce();
      let welcome: Extract<HostMessage, { t: 'welcome' }> | undefined;
      let client: HostClient | undefined;
      let handedOver = false;
      const socket = connect(socketPath);
      const channel = new LineChannel<HostMessage, ClientMessage>(
        socket,
        (message) => {
          if (client) return client.receive(message);
          if (!link.getSnapshot().matches({ linking: 'greeting' })) return;
          const problem = welcomeProblem(message, { build, key, nonce });
          if (problem) return tell({ type: 'FAILED', why: problem.why, detail: problem.text });
          welcome = message as Extract<HostMessage, { t: 'welcome' }>;
          tell({ type: 'WELCOMED' });
        },
        () => tell({ type: 'CLOSED' }),
      );
      const link = createActor(
        hostLinkMachine.provide({
          actions: {
            sendHello: () =>
              void channel.send({
                t: 'hello',
                protocol: WIRE_PROTOCOL,
                build,
                pid: process.pid,
                label,
                nonce,
              }),
            opened: () => {
              const proven = welcome!;
              channel.send({ t: 'proof', proof: sessionProof(key, nonce, proven.nonce) });
              const opened = new HostClient(channel, proven.pid, proven.version, inspection, surface);
              client = opened;
              const handOver = () => {
                handedOver = true;
                resolve(opened);
              };
              if (!inspection?.on()) return handOver();
              opened.inspectingReady = handOver;
              channel.send({ t: 'inspect', on: true });
            },
            failed: ({ context }) => {
              socket.destroy();
              const { why, detail } = context.failure!;
              reject(new HostUnavailable(`the shared host at ${socketPath} ${detail}`, why));
            },
            lost: () => {
              client?.lost();
              // Closed while the host was asked to send inspection events: the line never was handed over.
              if (!handedOver)
                reject(new HostUnavailable(`the shared host at ${socketPath} closed the connection`, 'gone'));
            },
          },
        }),
        { clock: unrefClock },
      );
      // A line that has ended hears nothing more (the socket's close follows its failure).
      const tell = (event: HostLinkEvent) => {
        if (link.getSnapshot().status === 'active') link.send(event);
      };
      link.start();
      socket.once('connect', () => tell({ type: 'CONNECTED' }));
      socket.once('error', (error) =>
        tell({ type: 'FAILED', why: 'absent', detail: `is not there (${error.message})` }),
      );
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

  detach(a: number): void {
    if (!this.attachments.delete(a)) return;
    this.servers.delete(a);
    this.channel.send({ t: 'detach', a });
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
        timer = setTimeout(giveUp, timeoutMs + CALL_GRACE_MS);
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

/**
 * Why the first answer to a hello is not this build's host proving the key, or undefined when it is.
 * Anything this build does not know (an older host's welcome, missing fields) is "not our host".
 */
function welcomeProblem(
  message: unknown,
  { build, key, nonce }: { build: string; key: Buffer; nonce: string },
): { text: string; why: LinkFailure } | undefined {
  const m = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
  if (m.t === 'other-build' || (m.t === 'welcome' && (m.protocol !== WIRE_PROTOCOL || m.build !== build))) {
    const of = typeof m.build === 'string' ? `build ${m.build}` : `version ${String(m.version)}`;
    return {
      text: `is another build's (${of}, protocol ${String(m.protocol ?? 1)}; this is ${build}, protocol ${WIRE_PROTOCOL}): not used`,
      why: 'other-build',
    };
  }
  if (
    m.t !== 'welcome' ||
    typeof m.pid !== 'number' ||
    typeof m.nonce !== 'string' ||
    typeof m.version !== 'string'
  )
    return {
      text: 'answered with something that is not a shared host of this build: not used',
      why: 'foreign',
    };
  if (!proofMatches(m.proof, hostProof(key, nonce, m.nonce)))
    return {
      text: "answered without proving the user's host key: not used (nothing was sent to it)",
      why: 'foreign',
    };
  return undefined;
}
