// One running server in the host, keyed by what it runs (./instance-key.ts), with the sessions
// attached to it. Its lifecycle is a server actor of the real server.machine.ts (connecting,
// connected, closing, needs-auth, backoff, closed; health pings; idle close), so the host's status
// reads the same snapshots a session does. The sessions attached are its callers:
//
// - an attach waits for the actor as a session's call does (ensureConnected, by tags), after asking for
//   a fresh attempt when the actor rests in backoff or needs-auth (the session's backoff waits for this
//   actor's next try, so its attach comes when this actor retries anyway, or when its user asks);
// - an attachment holds the actor like a call in flight (CALL_STARTED / CALL_FINISHED), so its health
//   pings run only when no session is attached (an attached session's own actor pings it through the
//   host);
// - when the actor leaves `connected` (once its connection has closed) every attachment ends, told
//   where the actor went (backoff with its next try, connecting again after a restart, closed): the
//   sessions' own actors mirror that state (the machine's `FarEnd`) and attach again when they retry
//   (an attach then finds needs-auth, if that is where the actor's next connect went);
// - with nobody attached, an instance that rests after a clean close is stopped and forgotten at once;
//   any other is kept for its idle time (the server's idleTimeout, else the host's idle time, for every
//   lifecycle), so the sessions' next tries find its state and schedule, then stopped and forgotten.
//
// All of that is the instance machine's (src/machines/host-instance.machine.ts: the server actor it
// invokes, one attachment machine per session, one call child per call in flight); this class provides
// its effects and is the host's view of it.
//
// Routing, after CVE-2026-25536: a call's result and progress go only to the attachment that made it
// (each call is its attachment's child, ./host-calls.ts); a server's request goes to the session whose call caused
// it when the client meets it inside that call (a 2026-07-28 input request rides on the call's own
// response, a Streamable HTTP server's on the call's own stream: see runFor()), else to the sessions
// with a call in flight on this instance (a legacy stdio server's requests carry no related-request
// id), else to every attached session, first answer wins, else it is declined (log messages and
// stderr lines go the same way); list_changed and the connection's end reach every attached session.

import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Actor,
  type AnyActorRef,
  createActor,
  type InspectionEvent,
  type SnapshotFrom,
  waitFor,
} from 'xstate';
import { serverLogic } from '../actors/server-actor.ts';
import { unrefClock } from '../actors/unref-clock.ts';
import { watchTokensLogic } from '../actors/watch-tokens.ts';
import type { TokenStore } from '../auth/token-store.ts';
import type { Logger } from '../logger.ts';
import {
  callsInFlight,
  type HostAttachmentContext,
  hostAttachmentMachine,
} from '../machines/host-attachment.machine.ts';
import type { hostCallMachine } from '../machines/host-call.machine.ts';
import { attachmentId, hostInstanceMachine } from '../machines/host-instance.machine.ts';
import { serverStateOf } from '../machines/server.machine.ts';
import type { Connector, ServerContext } from '../machines/server-types.ts';
import type { Connection, ConnectionEvent } from '../ports/connection.ts';
import type { InstanceState } from '../ports/host.ts';
import type { ElicitAnswer, HostRequests, SamplingAnswer } from '../ports/mcp.ts';
import { ConnectError } from '../ports/mcp.ts';
import type { FarEnd, ServerStatus, ServerTag } from '../ports/server-state.ts';
import { serverErrorText } from '../server-error-text.ts';
import { ensureConnected } from '../session/ensure-connected.ts';
import type { Asks, AskTarget } from './asks.ts';
import type { AskQuestion, HostMessage, HostStatus, InstanceRequest } from './protocol.ts';

/** The host's line to a session, as an instance sees it. */
export interface AttachedClient {
  readonly id: number;
  send(message: HostMessage): boolean;
}

/** A session attached to an instance: a view of its attachment actor (the instance's child). */
export interface Attachment extends AskTarget {
  readonly client: AttachedClient;
  readonly instance: Instance;
  /** The attachment actor's id among the instance's children. */
  readonly id: string;
}

/** The server logic of the host's instances: an instance's idle stop is the instance machine's. */
function serverLogicFor(tokenStore: TokenStore | undefined) {
  return serverLogic.provide({
    guards: { closesWhenIdle: () => false },
    ...(tokenStore ? { actors: { watchTokens: watchTokensLogic(() => tokenStore) } } : {}),
  });
}

type ServerRef = Actor<ReturnType<typeof serverLogicFor>>;
type ServerSnapshot = SnapshotFrom<ReturnType<typeof serverLogicFor>>;

/** The call a piece of work runs for, while that call is still running. */
interface CallOrigin {
  readonly attachment: string;
  running: boolean;
}

/** Is this actor the instance's server actor, or one of its children? (Only those are inspected.) */
function underServer(ref: AnyActorRef | undefined): boolean {
  for (let r = ref as (AnyActorRef & { _parent?: AnyActorRef }) | undefined; r; r = r._parent as typeof r)
    if (r.id === 'server' && r._parent && !(r._parent as { _parent?: unknown })._parent) return true;
  return false;
}

export class Instance {
  readonly since = Date.now();
  /** The instance machine: the server actor, the attachments, their calls. */
  private readonly root;
  /** The instance's server actor (invoked by the instance machine): what status, inspection and attaches read. */
  readonly actor: ServerRef;
  private gone = false;
  /** The state last pushed to the attachments (JSON). */
  private lastPushed = '';
  /** Which session's call the code running now is part of (see runFor()). */
  private readonly origin = new AsyncLocalStorage<CallOrigin>();

  constructor(
    readonly key: string,
    readonly request: InstanceRequest,
    connector: Connector,
    /** A call's two steps (./host-calls.ts, which reads this class: handed in, so neither imports the other). */
    callLogic: typeof hostCallMachine,
    private readonly asks: Asks,
    /** The instance ended: the host forgets it. */
    private readonly onGone: (instance: Instance) => void,
    idleMs: number,
    private readonly log: Logger,
    tokenStore?: TokenStore,
    /** Where its actors' inspection events go (./host-inspection.ts: nowhere unless a session inspects). */
    private readonly inspection?: { inspect(instance: Instance, event: InspectionEvent): void },
  ) {
    const def = request.definition;
    // Idle with nobody attached: the server's own idle timeout, else the host's idle time.
    const unusedMs = def.idleTimeoutMs > 0 ? def.idleTimeoutMs : idleMs;
    const logic = hostInstanceMachine.provide({
      actors: {
        server: serverLogicFor(tokenStore),
        attachment: hostAttachmentMachine.provide({
          actors: { call: callLogic },
          actions: {
            sayEnd: ({ context }) => this.sayEnd(context),
            release: ({ context }) => this.released(context),
          },
        }),
      },
      actions: {
        forgotten: () => this.forget(),
        stoppedUnused: () =>
          this.log.info('nobody attached: the server is stopped', { server: def.name, key: this.key }),
      },
    });
    this.root = createActor(logic, {
      clock: unrefClock,
      inspect: (event) => {
        if (this.inspection && underServer(event.actorRef as AnyActorRef))
          this.inspection.inspect(this, event);
      },
      input: {
        idleMs: unusedMs,
        server: {
          definition: { ...def, idleTimeoutMs: unusedMs },
          generation: 0,
          connector: this.connectorFor(connector),
        },
      },
    });
    this.root.start();
    this.actor = this.root.getSnapshot().children.server as ServerRef;
    this.actor.on('status', (status) => this.logStatus(status));
    this.actor.subscribe({ next: () => this.pushState(), error: () => {} });
  }

  /** Restarts a session asked for: a call that fails across one is told so. */
  get restarts(): number {
    return this.root.getSnapshot().context.restarts;
  }

  /** The sessions attached (views of the instance machine's children). */
  get attachments(): Attachment[] {
    if (!this.root) return [];
    return Object.entries(this.root.getSnapshot().context.attachments).map(([id, ref]) =>
      this.view(id, ref.getSnapshot().context),
    );
  }

  private view(id: string, context: Pick<HostAttachmentContext, 'a' | 'client'>): Attachment {
    return { id, a: context.a, client: context.client as AttachedClient, instance: this };
  }

  private attachmentRef(id: string) {
    return this.root.getSnapshot().context.attachments[id];
  }

  /** A session's attachment to this instance, while it lasts. */
  attachmentOf(client: AttachedClient, a: number): Attachment | undefined {
    const id = attachmentId(client.id, a);
    const ref = this.attachmentRef(id);
    return ref ? this.view(id, ref.getSnapshot().context) : undefined;
  }

  /** The calls of an attachment (pings left out), as its children: `running` once on the server. */
  callsOf(attachment: Attachment): { running: boolean }[] {
    const ref = this.attachmentRef(attachment.id);
    if (!ref) return [];
    return callsInFlight(ref.getSnapshot().context).map((call) => ({
      running: call.getSnapshot().hasTag('running'),
    }));
  }

  /** Calls and pings of an attachment in flight. */
  childrenInFlight(attachment: Attachment): number {
    const ref = this.attachmentRef(attachment.id);
    return ref ? Object.keys(ref.getSnapshot().context.calls).length : 0;
  }

  /** The host's connector with this instance's answers to the server's requests; its events reach the sessions. */
  private connectorFor(connector: Connector): Connector {
    const { protocolErasFile } = this.request;
    return async (definition, options) => {
      // A connection made while some call runs must not carry that call's origin into every later
      // message of its streams (a stdio pipe's reads, an HTTP listening stream).
      const connection = await this.origin.exit(() =>
        connector(definition, {
          ...options,
          host: this.hostRequests(),
          ...(protocolErasFile ? { protocolErasFile } : {}),
        }),
      );
      if (!options.signal.aborted) connection.onEvent((event) => this.forward(event));
      return connection;
    };
  }

  private hostRequests(): HostRequests {
    const { answers, roots } = this.request;
    const requests: HostRequests = {
      log: (level, text) => {
        for (const target of this.concerned()) target.client.send({ t: 'log', a: target.a, level, text });
      },
    };
    if (answers.roots) requests.roots = () => roots ?? [];
    // A server's question goes to the sessions it concerns (see concerned()); the first answer wins.
    const ask = (question: AskQuestion, signal: AbortSignal) =>
      this.asks.ask(this.concerned(), (id, a) => ({ t: 'ask', ask: id, a, ...question }), signal);
    if (answers.elicit)
      requests.elicit = (request, signal) =>
        ask({ kind: 'elicit', request }, signal) as Promise<ElicitAnswer>;
    if (answers.sample)
      requests.sample = (request, signal) =>
        ask({ kind: 'sample', request }, signal) as Promise<SamplingAnswer>;
    return requests;
  }

  /**
   * Runs a session's operation on the connection so that what the client meets inside it (an input
   * request on the call's own response, a request on the call's own HTTP stream) is known to be that
   * call's while it runs.
   */
  runFor<T>(attachment: Attachment, operation: () => Promise<T>): Promise<T> {
    const origin: CallOrigin = { attachment: attachment.id, running: true };
    return this.origin.run(origin, operation).finally(() => {
      origin.running = false;
    });
  }

  /**
   * Who a server's request or log is about: the session whose running call it came in, else the
   * attachments with a call in flight, else all attached.
   */
  private concerned(): Attachment[] {
    const attached = this.attachments;
    const origin = this.origin.getStore();
    const caller = origin?.running ? attached.find((a) => a.id === origin.attachment) : undefined;
    if (caller) return [caller];
    const calling = attached.filter((a) => this.callsOf(a).length > 0);
    return calling.length > 0 ? calling : attached;
  }

  private forward(event: ConnectionEvent): void {
    // The connection's end is the actor's to handle (it may retry by itself): see endFor().
    if (event.type === 'closed') return;
    // A stderr line may echo what a call carried: it goes where a log message would.
    const targets = event.type === 'stderr' ? this.concerned() : this.attachments;
    for (const target of targets) target.client.send({ t: 'event', a: target.a, event });
  }

  /** The instance actor's snapshot as the attached sessions see it. */
  state(): InstanceState {
    const snapshot = this.actor.getSnapshot();
    const { lastError, nextRetryAt } = snapshot.context;
    const pid = snapshot.hasTag('usable') ? snapshot.context.connection?.pid : undefined;
    return {
      state: serverStateOf(snapshot),
      tags: [...snapshot.tags].sort() as ServerTag[],
      ...(lastError ? { lastError: { kind: lastError.kind, detail: lastError.detail } } : {}),
      ...(nextRetryAt === undefined ? {} : { nextRetryAt }),
      ...(pid === undefined ? {} : { pid }),
    };
  }

  /**
   * Tells the attached sessions each change of the actor's state, and ends their attachments when the
   * actor has left `connected` for good (its connection closed): see endFor().
   */
  private pushState(): void {
    if (this.gone) return;
    const state = this.state();
    const json = JSON.stringify(state);
    if (json !== this.lastPushed) {
      this.lastPushed = json;
      for (const target of this.attachments) target.client.send({ t: 'state', a: target.a, state });
    }
    const end = this.endFor();
    if (!end) return;
    // A live attachment drains (its calls answer first), then says the end; one still attaching does not hear it.
    for (const ref of Object.values(this.root.getSnapshot().context.attachments))
      ref.send({ type: 'END', end });
  }

  private sayEnd(context: HostAttachmentContext): void {
    const end = this.endFor() ?? context.end;
    if (end) (context.client as AttachedClient).send({ t: 'event', a: context.a, event: end });
  }

  /** An attachment ended: its asks go to the others (or are declined). */
  private released(context: HostAttachmentContext): void {
    this.asks.drop((context.client as AttachedClient).id, context.a);
  }

  /**
   * The end of the attachments' connection once the actor is past `closing`: where it went (backoff
   * with its next try, connecting again after a restart, closed) and its last error, for the sessions'
   * own actors to mirror. Undefined while it is connected, closing, or not yet started.
   */
  private endFor(): ConnectionEvent | undefined {
    const snapshot = this.actor.getSnapshot();
    const state = serverStateOf(snapshot);
    if (state === 'connected' || state === 'closing' || state === 'init') return undefined;
    const { lastError, nextRetryAt } = snapshot.context;
    const error = lastError ? { kind: lastError.kind, detail: lastError.detail } : undefined;
    const withError = error ? { lastError: error } : {};
    // (From `closing` it goes to closed, backoff or connecting: a sign-in is needed only after a connect.)
    const farEnd: FarEnd | undefined =
      state === 'backoff' && nextRetryAt !== undefined
        ? { state, retryAt: nextRetryAt, ...withError }
        : state === 'connecting'
          ? { state, ...withError }
          : undefined;
    return {
      type: 'closed',
      ...(lastError ? { error: serverErrorText(lastError) } : {}),
      ...(farEnd ? { farEnd } : {}),
    };
  }

  /** `/mcp reconnect` in one session: closes the server and starts it again; every attached session sees it. */
  restart(): void {
    if (this.gone) return;
    this.log.info('a session restarts the server', { server: this.request.definition.name, key: this.key });
    this.root.send({ type: 'RESTART' });
  }

  /**
   * The live connection, after waiting while the actor's connection closes (a call racing the
   * connection's end fails, and its session then hears the end). Undefined when there is none.
   */
  async connectionSoon(signal: AbortSignal): Promise<Connection | undefined> {
    if (this.actor.getSnapshot().hasTag('closing'))
      await waitFor(this.actor, (s) => !s.hasTag('closing'), { signal }).catch(() => undefined);
    return this.connection();
  }

  /** Attaches a session, which holds the instance until its attachment ends. */
  attach(client: AttachedClient, a: number): Attachment {
    const id = attachmentId(client.id, a);
    this.root.send({ type: 'ATTACH', id, a, client });
    return this.view(id, { a, client });
  }

  /** The attach is answered: the session hears the connection's end from now on. */
  attached(attachment: Attachment): void {
    this.attachmentRef(attachment.id)?.send({ type: 'ATTACHED' });
  }

  /** The attach failed (the session was told). */
  attachFailed(attachment: Attachment): void {
    this.attachmentRef(attachment.id)?.send({ type: 'ATTACH_FAILED' });
  }

  /**
   * The session detached, or its line closed: its calls in flight are aborted. `retire`: its config no
   * longer has the server; held by nobody else, it stops now, not after its idle time.
   */
  detach(attachment: Attachment, retire = false): void {
    this.attachmentRef(attachment.id)?.send({ type: 'DETACH' });
    const others = this.attachments.filter((other) => other.id !== attachment.id);
    if (retire && !this.gone && others.length === 0) this.actor.send({ type: 'CLOSE' });
  }

  /** A session's call (or health ping) on its attachment: a child of the attachment until answered. */
  call(attachment: Attachment, id: number, ping: boolean, work: unknown): boolean {
    const ref = this.attachmentRef(attachment.id);
    if (!ref) return false;
    ref.send({ type: 'CALL', id, ping, work });
    return true;
  }

  /** The session cancels its call: the child is stopped, which aborts it. */
  cancel(attachment: Attachment, id: number): void {
    this.attachmentRef(attachment.id)?.send({ type: 'CANCEL', id });
  }

  /** Waits, as a session's call does, for the server to be usable; throws the ConnectError it failed with. */
  async usable(): Promise<Connection> {
    const before = this.actor.getSnapshot();
    if (before.hasTag('failsFast') || before.hasTag('closing')) this.actor.send({ type: 'RETRY' });
    const result = await ensureConnected(this.actor);
    if (result.ok) return result.connection;
    throw this.connectFailure(this.actor.getSnapshot().context);
  }

  /** The live connection, while the actor has one that takes calls. */
  connection(): Connection | undefined {
    const snapshot = this.actor.getSnapshot();
    return snapshot.hasTag('usable') ? snapshot.context.connection : undefined;
  }

  /** What a session is told when the attach fails: the machine's last error, as the same ConnectError. */
  private connectFailure(context: ServerContext): ConnectError {
    const { lastError, name, stderrTail, nextRetryAt } = context;
    // In backoff, its next try: the session's backoff waits for it (one schedule, the host's).
    const extra = {
      ...(stderrTail === '' ? {} : { stderrTail }),
      ...(nextRetryAt === undefined ? {} : { retryAt: nextRetryAt }),
    };
    if (!lastError || lastError.kind === 'call')
      return new ConnectError('aborted', `"${name}" was closed in the shared host before it was connected`);
    const text = serverErrorText(lastError);
    return new ConnectError(
      lastError.kind,
      lastError.detail.cause === 'connect' ? text : `"${name}" ${text} (in the shared host)`,
      extra,
    );
  }

  status(): HostStatus['instances'][number] {
    const snapshot: ServerSnapshot = this.actor.getSnapshot();
    const { request } = this;
    const pid = snapshot.context.connection?.pid;
    const attachments = this.attachments;
    let inFlight = 0;
    for (const a of attachments) inFlight += this.callsOf(a).length;
    return {
      key: this.key,
      server: request.definition.name,
      share: request.share,
      ...(request.share === 'project' && request.project ? { project: request.project } : {}),
      state: serverStateOf(snapshot),
      tags: [...snapshot.tags].sort() as ServerTag[],
      ...(pid === undefined ? {} : { pid }),
      attached: attachments.length,
      inFlight,
      held: snapshot.context.inFlight,
      since: this.since,
    };
  }

  /** The host's log: servers started, connected, failed, closed (from the actor's own status). */
  private logStatus(status: ServerStatus): void {
    const fields = { server: this.request.definition.name, share: this.request.share, key: this.key };
    const error = status.lastError ? { error: serverErrorText(status.lastError) } : {};
    const pid = this.actor.getSnapshot().context.connection?.pid;
    if (status.state === 'connecting') this.log.info('starting a server', fields);
    else if (status.state === 'connected')
      this.log.info('server connected', { ...fields, ...(pid === undefined ? {} : { pid }) });
    else if (status.state === 'backoff') this.log.warn('server failed', { ...fields, ...error });
    else if (status.state === 'needsAuth') this.log.warn('server needs a sign-in', { ...fields, ...error });
    else if (status.state === 'closed') this.log.info('server closed', { ...fields, ...error });
  }

  /** Ended: the host lets it go (a session attaching now gets a new instance). */
  private forget(): void {
    if (this.gone) return;
    this.gone = true;
    this.onGone(this);
  }

  /** Closes the server (its connection closes, a stdio server's process group ends) and forgets it. */
  async close(): Promise<void> {
    this.root.send({ type: 'STOP' });
    await waitFor(this.root, (s) => s.status !== 'active').catch(() => undefined);
  }
}
