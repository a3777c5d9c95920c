// One session's line to the shared host: the hello, attachments (one per server connection), calls
// with their own ids, progress and cancellation, and the server's questions put to this session.
// Every id here is this client's; the host keeps them apart from other sessions'.

import { connect } from 'node:net';
import { type ActorRefFrom, createActor } from 'xstate';
import { unrefClock } from '../../actors/unref-clock.ts';
import { newNonce, sessionProof } from '../../host/host-key.ts';
import { LineChannel } from '../../host/line-channel.ts';
import {
  type ClientMessage,
  type HostMessage,
  type HostStatus,
  helloOf,
  type InstanceRequest,
  type Operation,
  type OperationResult,
  type WireError,
} from '../../host/protocol.ts';
import { welcomeProblem } from '../../host/welcome.ts';
import { fromWire, toWire } from '../../host/wire-error.ts';
import type { InspectionRelay } from '../../inspect/deferred.ts';
import { type HostLinkEvent, hostLinkMachine, type LinkFailure } from '../../machines/host-link.machine.ts';
import {
  type HostRequestEvent,
  type HostRequestInput,
  type HostRequestOutcome,
  hostRequestMachine,
} from '../../machines/host-request.machine.ts';
import { CallError } from '../../ports/call-error.ts';
import type { CallOptions, ConnectionEvent } from '../../ports/connection.ts';
import type { InstanceState, OthersInFlight } from '../../ports/host.ts';
import type { HostRequests, LogLevel } from '../../ports/mcp.ts';
import type { Surface } from '../../ports/surface-words.ts';
import { inSurfaceWords } from '../mcp/auth/connect-auth.ts';
import { type GreetedLine, takeLineAhead } from './line-ahead.ts';
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

type Link = ActorRefFrom<typeof hostLinkMachine>;

export class HostClient {
  private nextId = 1;
  /** Who hears each attachment's pushes: from its attach on (its `attach:<a>` request in flight) until its end. */
  private readonly attachments = new Map<number, AttachmentHandlers>();
  private readonly asks = new Map<number, AbortController>();
  /** The server of each attachment, for the words of its errors. */
  private readonly servers = new Map<number, string>();
  /**
   * Restarts asked and answered per attachment: the host answers them in order, so the n-th answer is
   * the request `restart:<a>:<n>`'s (gone when it was given up: a late answer still takes its turn).
   */
  private readonly restarts = new Map<number, { asked: number; answered: number }>();
  private closedListeners: Array<() => void> = [];
  /** Closed by this side, or lost: nothing more is put to the host. */
  private gone = false;
  /** The host answered that it sends this session's instance actors' events. */
  private inspectingReady: (() => void) | undefined;
  private inspectionOff = false;

  private constructor(
    private readonly channel: LineChannel<HostMessage, ClientMessage>,
    /** The line's actor (src/machines/host-link.machine.ts): every request in flight is one of its children. */
    private readonly link: Link,
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
    const greetedAhead = takeLineAhead(socketPath, greeting.key, greeting.label);
    if (!greetedAhead) return HostClient.connect(socketPath, greeting);
    return greetedAhead.then((line) => HostClient.connect(socketPath, greeting, line));
  }

  /**
   * Greets on a new connection, or takes over a line ready ahead (./line-ahead.ts): one greeted ahead is
   * proven; a birth line is open at once, the host's welcome checked when it comes.
   */
  private static connect(socketPath: string, greeting: Greeting, ahead?: GreetedLine): Promise<HostClient> {
    const { build, key, label, inspection, surface } = greeting;
    return new Promise((resolve, reject) => {
      const nonce = ahead?.born?.nonce ?? newNonce();
      let welcome: Extract<HostMessage, { t: 'welcome' }> | undefined;
      let client: HostClient | undefined;
      let handedOver = false;
      const socket = ahead?.socket ?? connect(socketPath);
      const channel = new LineChannel<HostMessage, ClientMessage>(
        socket,
        (message) => {
          if (!link.getSnapshot().hasTag('welcoming')) return void client?.receive(message);
          const problem = welcomeProblem(message, { build, key, nonce });
          if (problem) return tell({ type: 'FAILED', why: problem.why, detail: problem.text });
          welcome = message as Extract<HostMessage, { t: 'welcome' }>;
          tell({ type: 'WELCOMED' });
        },
        () => tell({ type: 'CLOSED' }),
      );
      const link = createActor(
        hostLinkMachine.provide({
          actors: {
            // A request given up or cancelled: the host is told to stop it (a call's own upstream request).
            request: hostRequestMachine.provide({
              actions: {
                sendCancel: ({ context }) => {
                  if (context.wireId !== undefined) channel.send({ t: 'cancel', id: context.wireId });
                },
              },
            }),
          },
          actions: {
            // A line ready ahead (greeted, or a birth line) said its hello already.
            sendHello: () => {
              if (!ahead) channel.send(helloOf(build, label, nonce));
            },
            opened: () => {
              // None on a birth line: the host knows its session by birth.
              const proven = welcome;
              if (proven) channel.send({ t: 'proof', proof: sessionProof(key, nonce, proven.nonce) });
              const { pid, version } = ahead ?? proven!;
              const opened = new HostClient(channel, link, pid, version, inspection, surface);
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
        { clock: unrefClock, input: { born: ahead?.born !== undefined } },
      );
      // A line that has ended hears nothing more (the socket's close follows its failure).
      const tell = (event: HostLinkEvent) => {
        if (link.getSnapshot().status === 'active') link.send(event);
      };
      link.start();
      if (ahead?.born) return;
      if (ahead) {
        tell({ type: 'CONNECTED' });
        return tell({ type: 'WELCOMED' });
      }
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
    return this.attachments.size;
  }

  /** An attachment the host has made (its attach answered), else undefined. */
  private live(a: number): AttachmentHandlers | undefined {
    return this.link.getSnapshot().children[`attach:${a}`] ? undefined : this.attachments.get(a);
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
    this.attachments.set(a, handlers);
    const answer = this.request(`attach:${a}`, {}, { signal });
    this.channel.send({ t: 'attach', a, request });
    return answer.then((outcome) => {
      if (outcome.outcome === 'answered') return outcome.value as Attached;
      this.attachments.delete(a);
      this.servers.delete(a);
      if (outcome.outcome === 'dropped')
        throw new HostUnavailable(`the shared MCP host (pid ${this.hostPid}) went away`);
      if (outcome.outcome === 'cancelled') this.channel.send({ t: 'detach', a });
      // As after a detach: a line with nothing attached closes (an open one holds a CLI open forever).
      if (this.attachmentCount === 0) this.close();
      if (outcome.outcome === 'failed') throw outcome.error;
      throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    });
  }

  /** `retire`: the session's config no longer has the server (the host stops it if nobody else holds it). */
  detach(a: number, retire = false): void {
    if (!this.live(a)) return;
    this.attachments.delete(a);
    this.servers.delete(a);
    this.channel.send({ t: 'detach', a, ...(retire ? { retire } : {}) });
    const closed = new CallError('closed', 'The shared server connection was closed.');
    for (const [key, request] of Object.entries(this.link.getSnapshot().children))
      if (request?.getSnapshot().context.attachment === a)
        this.toLink({ type: 'TO_REQUEST', key, event: { type: 'FAILED', error: closed } });
    if (this.attachmentCount === 0) this.close();
  }

  /**
   * Asks the host to restart the instance behind this attachment (`/mcp reconnect`). Resolves with the
   * other sessions' running calls when the host held back for them (`force` restarts anyway); undefined
   * when it restarted, or there was nothing to restart (no attachment, no host, no answer in time).
   */
  restart(a: number, force = false): Promise<OthersInFlight | undefined> {
    if (this.gone || !this.live(a)) return Promise.resolve(undefined);
    const count = this.restarts.get(a) ?? { asked: 0, answered: 0 };
    this.restarts.set(a, count);
    count.asked++;
    const answer = this.request(`restart:${a}:${count.asked}`, { giveUpMs: RESTART_ANSWER_MS });
    this.channel.send({ t: 'restart', a, ...(force ? { force } : {}) });
    return answer.then((outcome) =>
      outcome.outcome === 'answered' ? (outcome.value as OthersInFlight | undefined) : undefined,
    );
  }

  call(
    a: number,
    operation: Operation,
    options: CallOptions & { timeoutMs: number },
  ): Promise<OperationResult> {
    if (this.gone || !this.live(a))
      return Promise.reject(new CallError('closed', 'The shared server connection is closed.'));
    const id = this.nextId++;
    const { signal, timeoutMs, onProgress } = options;
    if (signal?.aborted) return Promise.reject(new CallError('aborted', 'The call was cancelled.'));
    const reset = options.resetTimeoutOnProgress ?? onProgress !== undefined;
    const answer = this.request(
      `call:${id}`,
      {
        wireId: id,
        attachment: a,
        giveUpMs: timeoutMs + CALL_GRACE_MS,
        resetOnProgress: reset,
      },
      { signal, onProgress },
    );
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
    return answer.then((outcome) => {
      switch (outcome.outcome) {
        case 'answered':
          return outcome.value as OperationResult;
        case 'failed':
          throw outcome.error;
        case 'givenUp':
          throw new CallError('timeout', `The shared MCP host did not answer within ${timeoutMs} ms.`, {
            code: -32001,
          });
        case 'cancelled':
          throw new CallError('aborted', 'The call was cancelled.', { code: -32001 });
        case 'dropped':
          throw new CallError(
            'dropped',
            `The call failed: the shared MCP host (pid ${this.hostPid}) went away mid-call; the server may have run it. The next call starts a new host.`,
          );
      }
    });
  }

  /**
   * Puts a request to the link as its child `key` and resolves with how it ended (the request machine's
   * output): its progress goes to `onProgress`, its caller's abort cancels it.
   */
  private request(
    key: string,
    input: HostRequestInput,
    { signal, onProgress }: Pick<CallOptions, 'signal' | 'onProgress'> = {},
  ): Promise<HostRequestOutcome> {
    this.toLink({ type: 'REQUEST', key, input });
    const request = this.link.getSnapshot().children[key];
    if (!request) return Promise.resolve({ outcome: 'dropped' });
    return new Promise((resolve) => {
      const onAbort = () => this.toLink({ type: 'TO_REQUEST', key, event: { type: 'CANCEL' } });
      signal?.addEventListener('abort', onAbort, { once: true });
      let progress = request.getSnapshot().context.progress;
      request.subscribe({
        next: (snapshot) => {
          if (snapshot.context.progress === progress) return;
          progress = snapshot.context.progress;
          onProgress?.(progress as Parameters<NonNullable<CallOptions['onProgress']>>[0]);
        },
        complete: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(request.getSnapshot().output ?? { outcome: 'dropped' });
        },
      });
    });
  }

  status(): Promise<HostStatus> {
    if (this.gone) return Promise.reject(new HostUnavailable('the shared host went away'));
    const answer = this.request(`status:${this.nextId++}`, {});
    this.channel.send({ t: 'status' });
    return answer.then((outcome) => {
      if (outcome.outcome === 'answered') return outcome.value as HostStatus;
      throw new HostUnavailable('the shared host went away');
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
        const attached: Attached = {
          a,
          instance,
          catalog,
          stderrTail,
          state,
          ...(pid === undefined ? {} : { pid }),
        };
        return void this.toLink({
          type: 'TO_REQUEST',
          key: `attach:${a}`,
          event: { type: 'ANSWERED', value: attached },
        });
      }
      case 'attach-failed': {
        const error = this.errorOf(message.a, message.error);
        return void this.toLink({
          type: 'TO_REQUEST',
          key: `attach:${message.a}`,
          event: { type: 'FAILED', error },
        });
      }
      case 'result':
        return void this.toCall(message.id, { type: 'ANSWERED', value: message.value });
      case 'failed': {
        const a = this.link.getSnapshot().children[`call:${message.id}`]?.getSnapshot().context.attachment;
        if (a === undefined) return;
        return void this.toCall(message.id, { type: 'FAILED', error: this.errorOf(a, message.error) });
      }
      case 'progress':
        return void this.toCall(message.id, { type: 'PROGRESS', progress: message.progress });
      case 'event':
        this.live(message.a)?.onEvent(message.event);
        return;
      case 'state':
        this.attachments.get(message.a)?.onState(message.state);
        return;
      case 'log':
        this.live(message.a)?.host?.log?.(message.level as LogLevel, message.text);
        return;
      case 'ask':
        return void this.answer(message);
      case 'ask-cancelled':
        this.asks.get(message.ask)?.abort();
        this.asks.delete(message.ask);
        return;
      case 'status': {
        // Answered in the order asked: the oldest status request still waiting.
        const key = Object.keys(this.link.getSnapshot().children).find((k) => k.startsWith('status:'));
        if (key) this.toLink({ type: 'TO_REQUEST', key, event: { type: 'ANSWERED', value: message.status } });
        return;
      }
      case 'inspecting':
        this.inspectingReady?.();
        this.inspectingReady = undefined;
        return;
      case 'inspect':
        this.relayInspection(message.event);
        return;
      case 'restart-answer': {
        const count = this.restarts.get(message.a);
        if (!count) return;
        count.answered++;
        const key = `restart:${message.a}:${count.answered}`;
        if (count.answered >= count.asked) this.restarts.delete(message.a);
        this.toLink({ type: 'TO_REQUEST', key, event: { type: 'ANSWERED', value: message.held } });
        return;
      }
      default:
        return;
    }
  }

  /** An event for the line's actor while it runs (an ended line hears nothing more). */
  private toLink(event: HostLinkEvent): void {
    if (this.link.getSnapshot().status === 'active') this.link.send(event);
  }

  private toCall(id: number, event: HostRequestEvent): void {
    this.toLink({ type: 'TO_REQUEST', key: `call:${id}`, event });
  }

  private async answer(message: Extract<HostMessage, { t: 'ask' }>): Promise<void> {
    const host = this.live(message.a)?.host;
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
    // Called once: by the link, as it goes from open to gone.
    this.gone = true;
    // Its requests in flight were dropped by the link itself (each call says so).
    const why = `the shared MCP host (pid ${this.hostPid}) went away`;
    // An attach in flight was dropped with the rest (it fails: HostUnavailable); the made ones hear the end.
    for (const a of [...this.attachments.keys()]) this.live(a)?.onEvent({ type: 'closed', error: why });
    this.attachments.clear();
    for (const controller of this.asks.values()) controller.abort();
    this.restarts.clear();
    for (const listener of this.closedListeners.splice(0)) listener();
  }
}
