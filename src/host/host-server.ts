// The shared host: one process per user and package version that runs MCP servers for every Pi
// session, subagent and CLI call attached to its Unix socket. Each session is a client with its own
// ids: its attachments are its own children of the instances (./instance.ts), its calls children of
// those attachments, so nothing one session sends or receives reaches another (./instance.ts routes
// what the servers send).
//
// Its own life is a chart (src/machines/host-process.machine.ts: each client's line a child actor,
// its idle time, its stop): it exits when no session has been attached for `idleMs`
// (PI_MCP_ACTORS_HOST_IDLE_MS, default HOST_IDLE_MS), closing every server it runs. The chart runs on
// the clock it is given: unref'd in the host process (its listening socket is what keeps it up),
// XState's SimulatedClock in tests.

import { unlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname } from 'node:path';
import {
  type Actor,
  type ActorRefFrom,
  createActor,
  type EventFromLogic,
  fromPromise,
  toPromise,
} from 'xstate';
import { unrefClock } from '../actors/unref-clock.ts';
import type { TokenStore } from '../auth/token-store.ts';
import { type Logger, nullLogger } from '../logger.ts';
import { hostLineMachine, lineStage } from '../machines/host-line.machine.ts';
import { hostProcessMachine, hostStopsAt, lineId, provenClients } from '../machines/host-process.machine.ts';
import type { Connector } from '../machines/server-types.ts';
import type { Clock } from '../ports/clock.ts';
import type { SecretValues } from '../redact/index.ts';
import { Asks } from './asks.ts';
import { type ListenOutcome, listenExclusive } from './exclusive-listen.ts';
import { type CallWork, hostCallLogic, NOT_RUNNING } from './host-calls.ts';
import { HostInspection } from './host-inspection.ts';
import { hostProof, newNonce, proofMatches, sessionProof } from './host-key.ts';
import { type Attachment, Instance } from './instance.ts';
import { instanceKey } from './instance-key.ts';
import { copiesDiffer } from './key-difference.ts';
import { LineChannel, type LineSocket } from './line-channel.ts';
import { othersInFlight } from './others-in-flight.ts';
import { fileIdentity } from './own-socket.ts';
import { ensurePrivateFolder } from './private-place.ts';
import {
  type ClientMessage,
  type HostMessage,
  type HostStatus,
  type InstanceRequest,
  MAX_NONCE_LENGTH,
  WIRE_PROTOCOL,
} from './protocol.ts';
import { toWire } from './wire-error.ts';

/** How long the host stays up with no session attached. */
export const HOST_IDLE_MS = 10 * 60_000;

export interface HostOptions {
  socketPath: string;
  /** The package version (shown); the build is what a session must match. */
  version: string;
  build: string;
  /** The key of the agent dir's host folder (./host-key.ts): a session is served once it has proven it. */
  key: Buffer;
  connector: Connector;
  idleMs?: number;
  /** The host chart's clock, for its idle time (default: unref'd timers). */
  clock?: Clock;
  /** Called once the host has stopped (idle, or close()). */
  onExit?: () => void;
  /** Called when the host begins to stop, before it removes its socket. */
  onClosing?: () => void;
  /** What the host did (servers started, failed, closed; its own start and stop). */
  logger?: Logger;
  /** The host's known secrets (its log redacts with them): its servers' and what connecting learns. */
  secrets: SecretValues;
  /** The sign-in store the host's servers connect with: an instance needing a sign-in watches it. */
  tokenStore?: TokenStore;
  /**
   * The line to the session that started this host (./birth-line.ts), proven by birth: served once the
   * host listens, its hello and first requests already waiting in it.
   */
  birthLine?: LineSocket;
}

export interface RunningHost {
  readonly outcome: ListenOutcome;
  status(): HostStatus;
  close(): Promise<void>;
}

/** A line on the socket; its life (hello, proof, session or probe) is its child of the host chart. */
interface Client {
  readonly id: number;
  /** The host's birth line: its session needs no proof. */
  readonly born: boolean;
  readonly channel: LineChannel<ClientMessage, HostMessage>;
  send(message: HostMessage): boolean;
}

type LineRef = ActorRefFrom<typeof hostLineMachine>;

export async function startHost(options: HostOptions): Promise<RunningHost> {
  const idleMs = options.idleMs ?? HOST_IDLE_MS;
  const clock = options.clock ?? unrefClock;
  const log = options.logger ?? nullLogger;
  const { secrets } = options;
  const connector: Connector = (definition, connectOptions) =>
    options.connector(definition, { ...connectOptions, secrets });
  const startedAt = Date.now();
  const instances = new Map<string, Instance>();
  const asks = new Asks();
  const inspection = new HostInspection(secrets, () => instances.values());
  let nextClient = 1;
  /** The host's own chart: its clients, its idle time, its stop (none when the socket was taken). */
  let life: Actor<typeof hostProcessMachine> | undefined;

  const server: Server = createServer((socket) => accept(socket));
  ensurePrivateFolder(dirname(options.socketPath));
  const outcome = await listenExclusive(server, options.socketPath);
  if (outcome === 'taken') {
    server.close();
    // The session that started this host hears at once that it is not the one (it opens the socket).
    options.birthLine?.destroy();
    return { outcome, status, close: () => Promise.resolve() };
  }
  const socketFile = fileIdentity(options.socketPath);
  const hostLife = createActor(
    hostProcessMachine.provide({
      actors: {
        line: hostLineMachine.provide({
          actions: { drop: ({ context }) => (context.line as Client).channel.socket.destroy() },
        }),
        shutDown: fromPromise(() => shutDown()),
      },
      actions: { idleStop: () => log.info('no session attached: the host stops', { idleMs }) },
    }),
    { clock, input: { idleMs } },
  );
  life = hostLife;
  const closed = toPromise(hostLife).then(() => {});
  log.info('host started', {
    version: options.version,
    build: options.build,
    pid: process.pid,
    socket: options.socketPath,
  });
  hostLife.start();
  if (options.birthLine) {
    // The host's stop is the chart's to decide, not this line's.
    options.birthLine.unref();
    accept(options.birthLine, true);
  }
  return { outcome, status, close };

  /** An event for the host chart, while it runs (a line may close after the host has stopped). */
  function tell(event: EventFromLogic<typeof hostProcessMachine>): void {
    if (life?.getSnapshot().status === 'active') life.send(event);
  }

  /** The clients on the socket, from the host chart. */
  function clients(): Client[] {
    return Object.values(life?.getSnapshot().context.clients ?? {}).map(
      (ref) => ref.getSnapshot().context.line as Client,
    );
  }

  /** A client's line actor (the host chart's child), while its line is open. */
  function lineOf(client: Client) {
    return life?.getSnapshot().context.clients[lineId(client.id)];
  }

  function accept(socket: LineSocket, born = false): void {
    const client: Client = {
      id: nextClient++,
      born,
      channel: new LineChannel<ClientMessage, HostMessage>(
        socket,
        (message) => onMessage(client, message),
        () => onClientGone(client),
      ),
      send: (message) => client.channel.send(message),
    };
    tell({ type: 'CLIENT_JOINED', id: client.id, line: client });
  }

  function onClientGone(client: Client): void {
    tell({ type: 'CLIENT_LEFT', id: client.id });
    // Its attachments end; their calls in flight are stopped, which aborts them.
    for (const attachment of attachmentsOf(client)) attachment.instance.detach(attachment);
    void inspection.setInspecting(client, false);
  }

  function onMessage(client: Client, message: ClientMessage): void {
    const line = lineOf(client);
    if (!line || life?.getSnapshot().status !== 'active') return void client.channel.socket.destroy();
    const stage = lineStage(line.getSnapshot());
    if (stage === 'greeting') return void greet(client, line, message);
    // Its first word after the proof says whether it is a session or only a probe (`status`).
    if (stage === 'newcomer' || stage === 'standby')
      line.send({ type: 'SAID', probe: message.t === 'status' });
    switch (message.t) {
      case 'attach':
        return void attach(client, message.a, message.request);
      case 'detach': {
        const attachment = attachmentOf(client, message.a);
        attachment?.instance.detach(attachment, message.retire === true);
        return;
      }
      case 'restart': {
        // Not over other sessions' running calls unless forced: the session asks its user first.
        const instance = attachmentOf(client, message.a)?.instance;
        const held = instance && !message.force ? othersOn(instance, client) : undefined;
        if (instance && !held) instance.restart();
        return void client.send({ t: 'restart-answer', a: message.a, ...(held ? { held } : {}) });
      }
      case 'call':
        return void call(client, message);
      case 'cancel':
        // Only the caller's own call: the id is looked up among this client's attachments' calls alone.
        for (const attachment of attachmentsOf(client)) attachment.instance.cancel(attachment, message.id);
        return;
      case 'answer':
        asks.answer(client.id, message.ask, message);
        return;
      case 'status':
        return void client.send({ t: 'status', status: status() });
      case 'inspect': {
        const on = message.on === true;
        return void inspection.setInspecting(client, on).then(() => client.send({ t: 'inspecting', on }));
      }
      default:
        return;
    }
  }

  /**
   * The hello, then the session's proof: nothing else is read from a line before both. A hello of
   * another protocol or build hears which one this host is, and the line closes.
   */
  function greet(client: Client, line: LineRef, message: ClientMessage): void {
    const drop = () => client.channel.socket.destroy();
    const { challenge } = line.getSnapshot().context;
    if (!challenge) {
      if (message.t !== 'hello') return void drop();
      const { protocol, build, nonce, pid, label } = message as Partial<
        Extract<ClientMessage, { t: 'hello' }>
      >;
      if (protocol !== WIRE_PROTOCOL || build !== options.build) {
        client.send({ t: 'other-build', protocol: WIRE_PROTOCOL, build: options.build });
        return void client.channel.close();
      }
      if (typeof nonce !== 'string' || nonce.length === 0 || nonce.length > MAX_NONCE_LENGTH)
        return void drop();
      const host = newNonce();
      line.send({
        type: 'WELCOMED',
        pid: typeof pid === 'number' ? pid : 0,
        label: typeof label === 'string' ? label : '',
        challenge: { session: nonce, host },
      });
      client.send({
        t: 'welcome',
        protocol: WIRE_PROTOCOL,
        build: options.build,
        version: options.version,
        pid: process.pid,
        nonce: host,
        proof: hostProof(options.key, nonce, host),
      });
      if (client.born) line.send({ type: 'PROVEN' });
      return;
    }
    const { session, host } = challenge;
    if (message.t !== 'proof' || !proofMatches(message.proof, sessionProof(options.key, session, host)))
      return void drop();
    line.send({ type: 'PROVEN' });
  }

  async function attach(client: Client, a: number, request: InstanceRequest): Promise<void> {
    let key: string;
    try {
      key = instanceKey(request);
    } catch {
      client.send({
        t: 'attach-failed',
        a,
        error: { name: 'Error', message: 'The attach request is malformed.' },
      });
      return;
    }
    let instance = instances.get(key);
    if (!instance) {
      // The host's log passes the one redaction: it learns this server's secrets as a session does.
      secrets.addDefinitions([request.definition]);
      instance = new Instance(
        key,
        request,
        connector,
        hostCallLogic,
        asks,
        forget,
        idleMs,
        log,
        options.tokenStore,
        inspection,
      );
      instances.set(key, instance);
    }
    const attachment = instance.attach(client, a);
    // Its state now (opening, listing…): the attaching session sees a server that is still listing. A
    // copy that takes calls now is answered at once below, the answer carrying its state.
    if (!instance.connection()) client.send({ t: 'state', a, state: instance.state() });
    try {
      const connection = await instance.usable();
      // Detached meanwhile (or the line closed): nobody to answer.
      if (instance.attachmentOf(client, a)?.id !== attachment.id) return;
      client.send({
        t: 'attached',
        a,
        instance: key,
        catalog: instance.actor.getSnapshot().context.catalog ?? connection.catalog,
        ...(connection.pid === undefined ? {} : { pid: connection.pid }),
        stderrTail: connection.stderrTail(),
        state: instance.state(),
      });
      instance.attached(attachment);
    } catch (error) {
      instance.attachFailed(attachment);
      client.send({ t: 'attach-failed', a, error: toWire(error) });
    }
  }

  /** A client's attachments: the instances' children that are its own. */
  function attachmentsOf(client: Client): Attachment[] {
    const mine: Attachment[] = [];
    for (const instance of instances.values())
      for (const attachment of instance.attachments) if (attachment.client === client) mine.push(attachment);
    return mine;
  }

  function attachmentOf(client: Client, a: number): Attachment | undefined {
    for (const instance of instances.values()) {
      const attachment = instance.attachmentOf(client, a);
      if (attachment) return attachment;
    }
    return undefined;
  }

  /** The other sessions' calls running on `instance` (read from its attachments' call children). */
  function othersOn(instance: Instance, asking: Client) {
    type View = {
      attachments: Map<number, { instance: object }>;
      calls: Map<number, { attachment: { instance: object }; running: boolean }>;
    };
    const views = new Map<unknown, View>();
    const viewOf = (c: unknown): View => {
      const view = views.get(c) ?? { attachments: new Map(), calls: new Map() };
      views.set(c, view);
      return view;
    };
    const mine = viewOf(asking);
    for (const attachment of instance.attachments) {
      const view = viewOf(attachment.client);
      view.attachments.set(attachment.a, { instance });
      for (const { running } of instance.callsOf(attachment))
        view.calls.set(view.calls.size, { attachment: { instance }, running });
    }
    return othersInFlight(views.values(), mine, instance);
  }

  function forget(instance: Instance): void {
    if (instances.get(instance.key) === instance) instances.delete(instance.key);
  }

  function call(client: Client, message: Extract<ClientMessage, { t: 'call' }>): void {
    const attachment = attachmentOf(client, message.a);
    if (!attachment) return void client.send({ t: 'failed', id: message.id, error: NOT_RUNNING });
    const { instance } = attachment;
    const work: CallWork = { client, attachment, instance, message, restarts: instance.restarts };
    // A health ping is not a call: it routes no server request and does not hold back the connection's end.
    const ping = message.operation.op === 'ping';
    if (!instance.call(attachment, message.id, ping, work))
      client.send({ t: 'failed', id: message.id, error: NOT_RUNNING });
  }

  function status(): HostStatus {
    const snapshot = life?.getSnapshot();
    const proven = snapshot ? provenClients(snapshot.context) : [];
    const attached = proven.some(({ stage }) => stage === 'session');
    const stopsAt = snapshot ? hostStopsAt(snapshot) : undefined;
    return {
      version: options.version,
      build: options.build,
      pid: process.pid,
      socket: options.socketPath,
      startedAt,
      idleMs,
      ...(attached || stopsAt === undefined ? {} : { stopsAt }),
      clients: proven.map(({ ref, stage }) => {
        const { line, pid, label } = ref.getSnapshot().context;
        const attachments = attachmentsOf(line as Client);
        return {
          id: (line as Client).id,
          pid,
          label,
          attachments: attachments.length,
          inFlight: attachments.reduce((n, a) => n + a.instance.childrenInFlight(a), 0),
          ...(stage === 'probe' ? { probe: true as const } : {}),
        };
      }),
      instances: withDifferences([...instances.values()]),
    };
  }

  /** Stops the host now (a signal, its socket replaced): the chart's CLOSE. */
  function close(): Promise<void> {
    if (hostLife.getSnapshot().status === 'active') hostLife.send({ type: 'CLOSE' });
    return closed;
  }

  /** The chart's `shutDown`: the socket, the clients' lines, every instance. */
  async function shutDown(): Promise<void> {
    options.onClosing?.();
    // Closing a Unix socket server unlinks its path, whoever's file is there now: a socket another
    // host has taken over is only let go (the process exits without touching it).
    const ownsSocket = fileIdentity(options.socketPath) === socketFile;
    if (ownsSocket) server.close();
    else server.unref();
    for (const client of clients()) client.channel.socket.destroy();
    await Promise.allSettled([...instances.values()].map((i) => i.close()));
    try {
      if (ownsSocket) unlinkSync(options.socketPath);
    } catch {}
    log.info('host stopped');
    options.onExit?.();
  }
}

/** Each instance's status; copies of one server say what their keys differ in. */
function withDifferences(instances: Instance[]): HostStatus['instances'] {
  const byName = new Map<string, Instance[]>();
  for (const i of instances) {
    const name = i.request.definition.name;
    byName.set(name, [...(byName.get(name) ?? []), i]);
  }
  return instances.map((i) => {
    const copies = byName.get(i.request.definition.name)!;
    if (copies.length < 2) return i.status();
    return { ...i.status(), differs: copiesDiffer(copies.map((c) => c.request)) };
  });
}
