// The shared host: one process per user and package version that runs MCP servers for every Pi
// session, subagent and CLI call attached to its Unix socket. Each session is a client with its own
// ids: its calls, cancellations and progress are kept per client, so nothing one session sends or
// receives reaches another (./instance.ts routes what the servers send).
//
// It exits when no session has been attached for `idleMs` (PI_MCP_ACTORS_HOST_IDLE_MS, default
// HOST_IDLE_MS), closing every server it runs. That timer runs on the clock it is given: unref'd in
// the host process (its listening socket is what keeps it up), XState's SimulatedClock in tests.

import { unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { unrefClock } from '../actors/unref-clock.ts';
import type { TokenStore } from '../auth/token-store.ts';
import { type Logger, nullLogger } from '../logger.ts';
import type { Connector } from '../machines/server-types.ts';
import type { Clock } from '../ports/clock.ts';
import type { CallOptions, Connection } from '../ports/connection.ts';
import type { SecretValues } from '../redact/index.ts';
import { Asks } from './asks.ts';
import { type ListenOutcome, listenExclusive } from './exclusive-listen.ts';
import { HostInspection } from './host-inspection.ts';
import { hostProof, newNonce, proofMatches, sessionProof } from './host-key.ts';
import { type Attachment, Instance } from './instance.ts';
import { instanceKey } from './instance-key.ts';
import { copiesDiffer } from './key-difference.ts';
import { LineChannel } from './line-channel.ts';
import { othersInFlight } from './others-in-flight.ts';
import { fileIdentity } from './own-socket.ts';
import { ensurePrivateFolder } from './private-place.ts';
import {
  type ClientMessage,
  type HostMessage,
  type HostStatus,
  type InstanceRequest,
  MAX_NONCE_LENGTH,
  type Operation,
  type OperationResult,
  WIRE_PROTOCOL,
  type WireError,
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
  /** The idle timer's clock (default: unref'd timers). */
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
}

export interface RunningHost {
  readonly outcome: ListenOutcome;
  status(): HostStatus;
  close(): Promise<void>;
}

interface Client {
  readonly id: number;
  readonly channel: LineChannel<ClientMessage, HostMessage>;
  send(message: HostMessage): boolean;
  pid: number;
  label: string;
  /** The nonce of the welcome sent, until the session's proof arrives. */
  challenge?: { session: string; host: string };
  greeted: boolean;
  /** Only asks (status, which copies are warm): it does not hold the host (undefined until its first message). */
  probe: boolean | undefined;
  readonly attachments: Map<number, Attachment>;
  /** `running`: on the server now (not waiting for a copy to start, not a health ping): a restart cuts it. */
  readonly calls: Map<number, { controller: AbortController; attachment: Attachment; running: boolean }>;
}

export async function startHost(options: HostOptions): Promise<RunningHost> {
  const idleMs = options.idleMs ?? HOST_IDLE_MS;
  const clock = options.clock ?? unrefClock;
  const log = options.logger ?? nullLogger;
  const { secrets } = options;
  const connector: Connector = (definition, connectOptions) =>
    options.connector(definition, { ...connectOptions, secrets });
  const startedAt = Date.now();
  const clients = new Set<Client>();
  const instances = new Map<string, Instance>();
  const asks = new Asks();
  const inspection = new HostInspection(secrets, () => instances.values());
  let nextClient = 1;
  let idleTimer: unknown;
  /** When the idle time is up (epoch ms), while it runs. */
  let idleDeadline: number | undefined;
  /** The idle time is up; the stop waits for a newcomer to say whether it is a session. */
  let idleDue = false;
  let closing: Promise<void> | undefined;

  const server: Server = createServer((socket) => accept(socket));
  ensurePrivateFolder(dirname(options.socketPath));
  const outcome = await listenExclusive(server, options.socketPath);
  const host: RunningHost = { outcome, status, close };
  if (outcome === 'taken') {
    server.close();
    return host;
  }
  const socketFile = fileIdentity(options.socketPath);
  log.info('host started', {
    version: options.version,
    build: options.build,
    pid: process.pid,
    socket: options.socketPath,
  });
  armIdle();
  return host;

  /**
   * The idle time runs while no session is attached. A probe (`host`, a panel asking which copies are
   * warm) neither holds the host nor restarts the idle time. A newcomer that has not yet said which it
   * is (its first message after the hello) holds back the stop when the time is up, until it does.
   */
  function armIdle(): void {
    if (closing) return;
    const all = [...clients];
    if (all.some((c) => c.probe === false)) return void restartIdle();
    if (idleDeadline === undefined) {
      idleDeadline = Date.now() + idleMs;
      idleTimer = clock.setTimeout(() => {
        idleTimer = undefined;
        idleDue = true;
        armIdle();
      }, idleMs);
    }
    if (!idleDue || all.some((c) => c.probe === undefined)) return;
    log.info('no session attached: the host stops', { idleMs });
    void close();
  }

  /** A session came or went: the idle time starts anew once none is attached. */
  function restartIdle(): void {
    clock.clearTimeout(idleTimer);
    idleTimer = undefined;
    idleDeadline = undefined;
    idleDue = false;
  }

  function accept(socket: Socket): void {
    const client: Client = {
      id: nextClient++,
      channel: new LineChannel<ClientMessage, HostMessage>(
        socket,
        (message) => onMessage(client, message),
        () => onClientGone(client),
      ),
      send: (message) => client.channel.send(message),
      pid: 0,
      label: '',
      greeted: false,
      probe: undefined,
      attachments: new Map(),
      calls: new Map(),
    };
    clients.add(client);
  }

  function onClientGone(client: Client): void {
    clients.delete(client);
    for (const { controller } of client.calls.values()) controller.abort();
    client.calls.clear();
    for (const attachment of client.attachments.values()) attachment.instance.detach(attachment);
    client.attachments.clear();
    void inspection.setInspecting(client, false);
    // A session's leaving starts the idle time anew; a probe's does not.
    if (client.probe !== true) restartIdle();
    armIdle();
  }

  function onMessage(client: Client, message: ClientMessage): void {
    if (!client.greeted) return void greet(client, message);
    if (client.probe === undefined) {
      client.probe = message.t === 'status';
      armIdle();
    }
    switch (message.t) {
      case 'attach':
        return void attach(client, message.a, message.request);
      case 'detach': {
        const attachment = client.attachments.get(message.a);
        if (!attachment) return;
        client.attachments.delete(message.a);
        for (const [id, call] of client.calls)
          if (call.attachment === attachment) {
            call.controller.abort();
            client.calls.delete(id);
          }
        attachment.instance.detach(attachment);
        return;
      }
      case 'restart': {
        // Not over other sessions' running calls unless forced: the session asks its user first.
        const instance = client.attachments.get(message.a)?.instance;
        const held = instance && !message.force ? othersInFlight(clients, client, instance) : undefined;
        if (instance && !held) instance.restart();
        return void client.send({ t: 'restart-answer', a: message.a, ...(held ? { held } : {}) });
      }
      case 'call':
        return void call(client, message);
      case 'cancel':
        // Only the caller's own call: the id is looked up among this client's calls alone.
        return void client.calls.get(message.id)?.controller.abort();
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
  function greet(client: Client, message: ClientMessage): void {
    const drop = () => client.channel.socket.destroy();
    if (!client.challenge) {
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
      client.pid = typeof pid === 'number' ? pid : 0;
      client.label = typeof label === 'string' ? label : '';
      client.challenge = { session: nonce, host: newNonce() };
      client.send({
        t: 'welcome',
        protocol: WIRE_PROTOCOL,
        build: options.build,
        version: options.version,
        pid: process.pid,
        nonce: client.challenge.host,
        proof: hostProof(options.key, nonce, client.challenge.host),
      });
      return;
    }
    const { session, host } = client.challenge;
    if (message.t !== 'proof' || !proofMatches(message.proof, sessionProof(options.key, session, host)))
      return void drop();
    client.greeted = true;
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
        asks,
        forget,
        idleMs,
        log,
        options.tokenStore,
        inspection,
      );
      instances.set(key, instance);
    }
    const attachment: Attachment = { client, a, instance, inFlight: 0 };
    instance.attach(attachment);
    client.attachments.set(a, attachment);
    // Its state now (opening, listing…): the attaching session sees a server that is still listing.
    client.send({ t: 'state', a, state: instance.state() });
    try {
      const connection = await instance.usable();
      if (client.attachments.get(a) !== attachment) return;
      attachment.live = true;
      client.send({
        t: 'attached',
        a,
        instance: key,
        catalog: instance.actor.getSnapshot().context.catalog ?? connection.catalog,
        ...(connection.pid === undefined ? {} : { pid: connection.pid }),
        stderrTail: connection.stderrTail(),
        state: instance.state(),
      });
    } catch (error) {
      client.attachments.delete(a);
      instance.detach(attachment);
      client.send({ t: 'attach-failed', a, error: toWire(error) });
    }
  }

  function forget(instance: Instance): void {
    if (instances.get(instance.key) === instance) instances.delete(instance.key);
  }

  async function call(client: Client, message: Extract<ClientMessage, { t: 'call' }>): Promise<void> {
    const { id } = message;
    const attachment = client.attachments.get(message.a);
    const instance = attachment?.instance;
    if (!attachment || !instance) return void client.send({ t: 'failed', id, error: NOT_RUNNING });
    const controller = new AbortController();
    const entry = { controller, attachment, running: false };
    client.calls.set(id, entry);
    // A health ping is not a call: it routes no server request and does not hold back the connection's end.
    const counted = message.operation.op !== 'ping';
    if (counted) instance.callStarted(attachment);
    let restarts = instance.restarts;
    try {
      // A call racing the connection's end fails; the session then hears the end (and where the
      // instance went) and its own actor follows.
      const connection = await instance.connectionSoon(controller.signal);
      if (!connection) {
        const error = controller.signal.aborted
          ? { name: 'CallError' as const, kind: 'aborted', message: 'The call was cancelled.' }
          : instance.restarts !== restarts
            ? restartedWire(instance)
            : NOT_RUNNING;
        return void client.send({ t: 'failed', id, error });
      }
      restarts = instance.restarts;
      entry.running = counted;
      const value = await instance.runFor(attachment, () =>
        run(connection, message.operation, {
          signal: controller.signal,
          ...(message.timeoutMs === undefined ? {} : { timeoutMs: message.timeoutMs }),
          ...(message.resetTimeoutOnProgress === undefined
            ? {}
            : { resetTimeoutOnProgress: message.resetTimeoutOnProgress }),
          ...(message.progress
            ? { onProgress: (progress) => client.send({ t: 'progress', id, progress }) }
            : {}),
        }),
      );
      client.send({ t: 'result', id, value });
    } catch (error) {
      const restarted = instance.restarts !== restarts && !controller.signal.aborted;
      client.send({ t: 'failed', id, error: restarted ? restartedWire(instance) : toWire(error) });
    } finally {
      client.calls.delete(id);
      if (counted) instance.callFinished(attachment);
    }
  }

  function status(): HostStatus {
    const attached = [...clients].some((c) => c.greeted && c.probe !== true);
    return {
      version: options.version,
      build: options.build,
      pid: process.pid,
      socket: options.socketPath,
      startedAt,
      idleMs,
      ...(attached || idleDeadline === undefined ? {} : { stopsAt: idleDeadline }),
      clients: [...clients]
        .filter((c) => c.greeted)
        .map((c) => ({
          id: c.id,
          pid: c.pid,
          label: c.label,
          attachments: c.attachments.size,
          inFlight: c.calls.size,
          ...(c.probe ? { probe: true as const } : {}),
        })),
      instances: withDifferences([...instances.values()]),
    };
  }

  function close(): Promise<void> {
    closing ??= (async () => {
      options.onClosing?.();
      clock.clearTimeout(idleTimer);
      // Closing a Unix socket server unlinks its path, whoever's file is there now: a socket another
      // host has taken over is only let go (the process exits without touching it).
      const ownsSocket = fileIdentity(options.socketPath) === socketFile;
      if (ownsSocket) server.close();
      else server.unref();
      for (const client of clients) client.channel.socket.destroy();
      await Promise.allSettled([...instances.values()].map((i) => i.close()));
      try {
        if (ownsSocket) unlinkSync(options.socketPath);
      } catch {}
      log.info('host stopped');
      options.onExit?.();
    })();
    return closing;
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

/** A call on an attachment whose connection has ended (or a copy that is gone). */
const NOT_RUNNING: WireError = {
  name: 'CallError',
  kind: 'closed',
  message: 'The shared server is no longer running.',
};

/** A call cut off because a session restarted its server: the one wording of that rule. */
function restartedWire(instance: Instance): WireError {
  return {
    name: 'CallError',
    kind: 'closed',
    message: `another session restarted "${instance.request.definition.name}" (/mcp reconnect) while the call ran`,
  };
}

/** One operation of a session on the instance's connection, as its own upstream request. */
function run(connection: Connection, operation: Operation, options: CallOptions): Promise<OperationResult> {
  const { signal } = options;
  switch (operation.op) {
    case 'callTool':
      return connection.callTool(operation.name, operation.args, options);
    case 'readResource':
      return connection.readResource(operation.uri, options);
    case 'getPrompt':
      return connection.getPrompt(operation.name, operation.args, options);
    case 'completePrompt':
      return connection.completePrompt
        ? connection.completePrompt(operation.prompt, operation.argument, operation.context, signal)
        : Promise.resolve([]);
    case 'listTools':
      return connection.listTools(signal);
    case 'listResources':
      return connection.listResources(signal);
    case 'listResourceTemplates':
      return connection.listResourceTemplates(signal);
    case 'listPrompts':
      return connection.listPrompts(signal);
    case 'ping':
      return connection.ping ? connection.ping(signal).then(() => null) : Promise.resolve(null);
  }
}
