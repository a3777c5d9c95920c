// One running server in the host, keyed by what it runs (./instance-key.ts), with the sessions
// attached to it. Routing, after CVE-2026-25536: a call's result and progress go only to the
// attachment that made it (./host-server.ts keeps calls per client); a server's request goes to the
// sessions with a call in flight on this instance (the only ones it can be about: stdio carries no
// related-request id), else to every attached session, first answer wins, else it is declined (log
// messages and stderr lines go the same way); list_changed and the connection's end reach every
// attached session.

import type {
  Connection,
  ConnectionEvent,
  Connector,
  ElicitAnswer,
  HostRequests,
  SamplingAnswer,
} from '../adapters/mcp/connection-port.ts';
import { ConnectError } from '../adapters/mcp/connection-port.ts';
import type { Logger } from '../logger.ts';
import { startupTimeoutText } from '../server-error-text.ts';
import type { Asks, AskTarget } from './asks.ts';
import type { AskQuestion, HostStatus, InstanceRequest } from './protocol.ts';

export interface Attachment extends AskTarget {
  readonly instance: Instance;
  /** Calls of this attachment still running. */
  inFlight: number;
}

type InstanceState = HostStatus['instances'][number]['state'];

export class Instance {
  readonly attachments = new Set<Attachment>();
  state: InstanceState = 'connecting';
  connection: Connection | undefined;
  readonly ready: Promise<Connection>;
  private readonly abort = new AbortController();
  private unsubscribe: (() => void) | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly key: string,
    readonly request: InstanceRequest,
    connector: Connector,
    private readonly asks: Asks,
    /** The instance ended (failed, closed, idle): the host forgets it. */
    private readonly onGone: (instance: Instance) => void,
    private readonly idleMs: number,
    private readonly log: Logger,
  ) {
    this.log.info('starting a server', this.fields());
    this.ready = this.connect(connector);
    this.ready.catch(() => {});
  }

  private async connect(connector: Connector): Promise<Connection> {
    const def = this.request.definition;
    const startup = setTimeout(() => this.abort.abort(), def.startupTimeoutMs);
    try {
      const connection = await connector(def, {
        signal: this.abort.signal,
        host: this.hostRequests(),
        ...(this.request.protocolErasFile ? { protocolErasFile: this.request.protocolErasFile } : {}),
      });
      this.connection = connection;
      this.state = 'connected';
      this.log.info('server connected', { ...this.fields(), pid: connection.pid });
      this.unsubscribe = connection.onEvent((event) => this.onConnectionEvent(event));
      return connection;
    } catch (error) {
      this.state = 'failed';
      this.log.warn('server failed to start', {
        ...this.fields(),
        error: error instanceof Error ? error.message : String(error),
      });
      this.onGone(this);
      if (this.abort.signal.aborted && !(error instanceof ConnectError && error.kind !== 'aborted'))
        throw new ConnectError(
          'timeout',
          `"${def.name}" ${startupTimeoutText(def.startupTimeoutMs)} (in the shared host)`,
        );
      throw error;
    } finally {
      clearTimeout(startup);
    }
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

  /** Who a server's request or log is about: the attachments with a call in flight, else all attached. */
  private concerned(): Attachment[] {
    const attached = [...this.attachments];
    const calling = attached.filter((a) => a.inFlight > 0);
    return calling.length > 0 ? calling : attached;
  }

  private onConnectionEvent(event: ConnectionEvent): void {
    // A stderr line may echo what a call carried: it goes where a log message would.
    const targets = event.type === 'stderr' ? this.concerned() : this.attachments;
    for (const target of targets) target.client.send({ t: 'event', a: target.a, event });
    if (event.type === 'closed') {
      this.log.info('server connection closed', { ...this.fields(), error: event.error });
      this.end();
    }
  }

  attach(attachment: Attachment): void {
    clearTimeout(this.idleTimer);
    this.attachments.add(attachment);
  }

  detach(attachment: Attachment): void {
    this.attachments.delete(attachment);
    this.asks.drop((target) => target === attachment);
    if (this.attachments.size > 0 || this.state === 'failed') return;
    // Warm for the next session a while; a lazy server's own idle timeout, else the host's.
    const def = this.request.definition;
    const after = def.idleTimeoutMs > 0 ? def.idleTimeoutMs : this.idleMs;
    this.idleTimer = setTimeout(() => {
      this.log.info('closing an idle server', this.fields());
      void this.close();
    }, after);
    this.idleTimer.unref();
  }

  private fields(): Record<string, unknown> {
    return { server: this.request.definition.name, share: this.request.share, key: this.key };
  }

  get inFlight(): number {
    let sum = 0;
    for (const a of this.attachments) sum += a.inFlight;
    return sum;
  }

  private end(): void {
    clearTimeout(this.idleTimer);
    this.unsubscribe?.();
    if (this.state !== 'failed') this.state = 'failed';
    this.onGone(this);
  }

  async close(): Promise<void> {
    this.abort.abort();
    const connection = this.connection;
    this.end();
    await connection?.close();
  }
}
