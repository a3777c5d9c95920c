// One running server in the host, keyed by what it runs (./instance-key.ts), with the sessions
// attached to it. Its lifecycle is a server actor of the real server.machine.ts (connecting,
// connected, closing, needs-auth, backoff, closed; health pings; idle close), so the host's status
// reads the same snapshots a session does. The sessions attached are its callers:
//
// - an attach waits for the actor as a session's call does (ensureConnected, by tags), after asking for
//   a fresh attempt when the actor rests in backoff or needs-auth (the session's backoff waits for this
//   actor's next try, so its attach comes when this actor retries anyway, or when its user asks);
// - an attachment holds the actor like a call in flight (CALL_STARTED / CALL_FINISHED), so an instance
//   closes for being idle only when no session is attached (after the server's idleTimeout, else the
//   host's idle time, for every lifecycle), and its health pings run only then (an attached session's
//   own actor pings it through the host);
// - when the actor leaves `connected` (once its connection has closed) every attachment ends, told
//   where the actor went (backoff with its next try, connecting again after a restart, closed): the
//   sessions' own actors mirror that state (the machine's `FarEnd`) and attach again when they retry
//   (an attach then finds needs-auth, if that is where the actor's next connect went);
// - with nobody attached, an instance that rests after a clean close is stopped and forgotten at once;
//   one that failed (or is still retrying) is kept for its idle time, so the sessions' next tries find
//   its state and schedule, then stopped and forgotten.
//
// Routing, after CVE-2026-25536: a call's result and progress go only to the attachment that made it
// (./host-server.ts keeps calls per client); a server's request goes to the session whose call caused
// it when the client meets it inside that call (a 2026-07-28 input request rides on the call's own
// response, a Streamable HTTP server's on the call's own stream: see runFor()), else to the sessions
// with a call in flight on this instance (a legacy stdio server's requests carry no related-request
// id), else to every attached session, first answer wins, else it is declined (log messages and
// stderr lines go the same way); list_changed and the connection's end reach every attached session.

import { AsyncLocalStorage } from 'node:async_hooks';
import { type Actor, createActor, type InspectionEvent, waitFor } from 'xstate';
import { serverLogic } from '../actors/server-actor.ts';
import { unrefClock } from '../actors/unref-clock.ts';
import { watchTokensLogic } from '../actors/watch-tokens.ts';
import type { TokenStore } from '../auth/token-store.ts';
import type { Logger } from '../logger.ts';
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
import type { AskQuestion, HostStatus, InstanceRequest } from './protocol.ts';

export interface Attachment extends AskTarget {
  readonly instance: Instance;
  /** Calls of this attachment still running (for routing a server's requests). */
  inFlight: number;
  /** The session was told it is attached: it hears the connection's end (an attach still waiting does not). */
  live?: boolean;
  /** The connection's end, held back until this attachment's calls in flight have had their answers. */
  ending?: ConnectionEvent;
}

/** How long an instance waits for its connection to close when the host stops. */
const CLOSE_WAIT_MS = 10_000;

/** The server logic of the host's instances: an instance nobody holds closes when idle, whatever its lifecycle. */
function instanceLogic(tokenStore: TokenStore | undefined) {
  return serverLogic.provide({
    guards: { closesWhenIdle: () => true },
    ...(tokenStore ? { actors: { watchTokens: watchTokensLogic(() => tokenStore) } } : {}),
  });
}

type InstanceActor = Actor<ReturnType<typeof instanceLogic>>;

/** The call a piece of work runs for, while that call is still running. */
interface CallOrigin {
  readonly attachment: Attachment;
  running: boolean;
}

export class Instance {
  readonly attachments = new Set<Attachment>();
  readonly since = Date.now();
  readonly actor: InstanceActor;
  /** Counts restarts asked by sessions: a call that fails across one is told so. */
  restarts = 0;
  private gone = false;
  /** The state last pushed to the attachments (JSON). */
  private lastPushed = '';
  /** How long it is kept with nobody attached when not connected: the actor's idle timeout. */
  private readonly unusedMs: number;
  /** Runs while nobody is attached and the actor is not connected; forgets the instance when it fires. */
  private unusedTimer: unknown;
  /** Which session's call the code running now is part of (see runFor()). */
  private readonly origin = new AsyncLocalStorage<CallOrigin>();

  constructor(
    readonly key: string,
    readonly request: InstanceRequest,
    connector: Connector,
    private readonly asks: Asks,
    /** The instance rests or failed with nobody attached (or the host stops): the host forgets it. */
    private readonly onGone: (instance: Instance) => void,
    idleMs: number,
    private readonly log: Logger,
    tokenStore?: TokenStore,
    /** Where its actors' inspection events go (./host-inspection.ts: nowhere unless a session inspects). */
    private readonly inspection?: { inspect(instance: Instance, event: InspectionEvent): void },
  ) {
    const def = request.definition;
    // Idle with nobody attached: the server's own idle timeout, else the host's idle time.
    this.unusedMs = def.idleTimeoutMs > 0 ? def.idleTimeoutMs : idleMs;
    this.actor = createActor(instanceLogic(tokenStore), {
      clock: unrefClock,
      inspect: (event) => this.inspection?.inspect(this, event),
      input: {
        definition: { ...def, idleTimeoutMs: this.unusedMs },
        generation: 0,
        connector: this.connectorFor(connector),
      },
    });
    this.actor.on('status', (status) => this.logStatus(status));
    this.actor.subscribe({
      next: () => {
        this.pushState();
        this.forgetIfUnused();
      },
      error: () => this.forget(),
    });
    this.actor.start();
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
    const origin: CallOrigin = { attachment, running: true };
    return this.origin.run(origin, operation).finally(() => {
      origin.running = false;
    });
  }

  /**
   * Who a server's request or log is about: the session whose running call it came in, else the
   * attachments with a call in flight, else all attached.
   */
  private concerned(): Attachment[] {
    const origin = this.origin.getStore();
    if (origin?.running && this.attachments.has(origin.attachment)) return [origin.attachment];
    const attached = [...this.attachments];
    const calling = attached.filter((a) => a.inFlight > 0);
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
    const state = this.state();
    const json = JSON.stringify(state);
    if (json !== this.lastPushed) {
      this.lastPushed = json;
      for (const target of this.attachments) target.client.send({ t: 'state', a: target.a, state });
    }
    const end = this.endFor();
    if (!end) return;
    for (const target of [...this.attachments]) if (target.live) this.end(target, end);
  }

  /**
   * Ends an attachment: the session hears the end, and the host lets it go. Not before its calls in
   * flight have had their answers (their failure says why, e.g. a restart), so the end comes after them.
   */
  private end(target: Attachment, end: ConnectionEvent): void {
    if (target.inFlight > 0) {
      target.ending = end;
      return;
    }
    target.client.send({ t: 'event', a: target.a, event: end });
    this.detach(target);
  }

  /** A call of this attachment starts (for routing a server's requests to the sessions it concerns). */
  callStarted(attachment: Attachment): void {
    attachment.inFlight++;
  }

  /** A call of this attachment has had its answer: an end held back for it goes now. */
  callFinished(attachment: Attachment): void {
    attachment.inFlight--;
    const held = attachment.ending;
    if (held && attachment.inFlight === 0 && this.attachments.has(attachment)) {
      attachment.ending = undefined;
      this.end(attachment, this.endFor() ?? held);
    }
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
    this.restarts++;
    this.log.info('a session restarts the server', { server: this.request.definition.name, key: this.key });
    // As the session's own RECONNECT: close whatever runs, then connect afresh.
    this.actor.send({ type: 'CLOSE' });
    this.actor.send({ type: 'RETRY' });
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

  /** Attaches a session, which holds the instance until it detaches. */
  attach(attachment: Attachment): void {
    this.attachments.add(attachment);
    this.actor.send({ type: 'CALL_STARTED' });
  }

  detach(attachment: Attachment): void {
    if (!this.attachments.delete(attachment)) return;
    this.asks.drop((target) => target === attachment);
    if (!this.gone) this.actor.send({ type: 'CALL_FINISHED' });
    this.forgetIfUnused();
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
    const snapshot = this.actor.getSnapshot();
    const { request } = this;
    const pid = snapshot.context.connection?.pid;
    let inFlight = 0;
    for (const a of this.attachments) inFlight += a.inFlight;
    return {
      key: this.key,
      server: request.definition.name,
      share: request.share,
      ...(request.share === 'project' && request.project ? { project: request.project } : {}),
      state: serverStateOf(snapshot),
      tags: [...snapshot.tags].sort() as ServerTag[],
      ...(pid === undefined ? {} : { pid }),
      attached: this.attachments.size,
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

  /**
   * Nobody attached: forgotten at once when it rests after a clean close; kept for its idle time when
   * it failed or is retrying (the sessions' next tries find its state), then forgotten. A connected
   * instance is the actor's to close when idle.
   */
  private forgetIfUnused(): void {
    if (this.gone) return;
    const snapshot = this.actor.getSnapshot();
    if (this.attachments.size > 0 || snapshot.hasTag('usable')) {
      this.keepUnused();
      return;
    }
    if (serverStateOf(snapshot) === 'init') return;
    if (snapshot.hasTag('resting') && snapshot.context.attempt === 0) {
      this.forget();
      return;
    }
    this.unusedTimer ??= unrefClock.setTimeout(() => {
      this.unusedTimer = undefined;
      if (this.gone || this.attachments.size > 0 || this.actor.getSnapshot().hasTag('usable')) return;
      this.log.info('nobody attached: the server is stopped', {
        server: this.request.definition.name,
        key: this.key,
      });
      this.forget();
    }, this.unusedMs);
  }

  private keepUnused(): void {
    if (this.unusedTimer === undefined) return;
    unrefClock.clearTimeout(this.unusedTimer);
    this.unusedTimer = undefined;
  }

  private forget(): void {
    if (this.gone) return;
    this.keepUnused();
    this.gone = true;
    this.onGone(this);
    // Not from inside the actor's own notification.
    queueMicrotask(() => this.actor.stop());
  }

  /** Closes the server (its connection closes, a stdio server's process group ends) and forgets it. */
  async close(): Promise<void> {
    if (!this.gone) {
      this.actor.send({ type: 'CLOSE' });
      await waitFor(this.actor, (s) => s.hasTag('resting'), { timeout: CLOSE_WAIT_MS }).catch(
        () => undefined,
      );
    }
    this.forget();
  }
}
