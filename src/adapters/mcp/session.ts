// Opening a session: the transport (stdio, Streamable HTTP or legacy SSE) and the MCP handshake
// (`initialize`, or for a 2026-07-28 server `server/discover`: see ./era-negotiation.ts).

import { statSync } from 'node:fs';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { defaultTokenStore } from '../../auth/default-store.ts';
import type { Surface } from '../../auth/sign-in-advice.ts';
import type { TokenStore } from '../../auth/token-store.ts';
import type { ServerDefinition } from '../../config/types.ts';
import { ConnectError, type HostRequests, type ServerCatalog } from '../../ports/mcp.ts';
import type { TraceLog } from '../../ports/trace.ts';
import type { SecretValues } from '../../redact/index.ts';
import { needsAuthMessage, usesOAuth } from './auth/connect-auth.ts';
import { StoreOAuthProvider } from './auth/provider.ts';
import { boundListedSchemas } from './bounded-listing.ts';
import { CallStreams } from './call-streams.ts';
import { withCommandValues } from './command-values.ts';
import { connectInEra, type EraPlan } from './era-negotiation.ts';
import { isAuthError, isRequestTimeout, toConnectError } from './errors.ts';
import type { EventHub } from './event-hub.ts';
import { clientCapabilities, installHostRequests } from './host-requests.ts';
import { guardLaunch } from './launcher-guard.ts';
import { listenForChanges } from './listen.ts';
import { memoryProtocolEraStore, type ProtocolEraStore } from './protocol-eras.ts';
import { serverFetch } from './server-fetch.ts';
import { SocketTransport } from './socket-transport.ts';
import type { StderrTail } from './stderr-tail.ts';
import { StdioProcess } from './stdio-process.ts';
import { GroupStdioTransport } from './stdio-transport.ts';
import { catchCreatedTasks } from './task-extension.ts';
import { traceTransport } from './trace.ts';

const CLIENT_INFO = { name: 'pi-mcp-actors', version: '0.1.0' };

export interface McpConnectorOptions {
  /** stdio: after stdin is closed, how long the server may take to exit by itself (default STDIN_GRACE_MS, 20 ms). */
  stdinGraceMs?: number;
  /** stdio: after SIGTERM to the process group, how long before SIGKILL (default 2 s). */
  killGraceMs?: number;
  /** HTTP: how long close() waits for the session DELETE (default 500 ms). */
  terminateSessionMs?: number;
  /** HTTP: where OAuth sign-ins live (default: the user's agent dir). */
  tokenStore?: TokenStore;
  /** The runtime's known secrets: what connecting learns (`!command` outputs, command headers) goes there. */
  secrets?: SecretValues;
  /** `trace: true` servers: the session's protocol trace. */
  trace?: TraceLog;
  /** Whose words a needs-auth error uses: Pi's `/mcp-auth` (default) or the CLI's `login`. */
  surface?: Surface;
  /** `protocolVersion: "auto"`: the remembered era of each server entry (default: this process only). */
  protocolEras?: ProtocolEraStore;
}

export type TransportKind = ServerCatalog['transport'];

export interface Session {
  client: Client;
  transport: Transport;
  kind: TransportKind;
  protocolVersion?: string;
  /** stdio only. */
  process?: StdioProcess;
  /** Replaced by a renewed session or being closed on purpose: its close is not a loss. */
  retired?: boolean;
  /** OAuth servers: the provider the transport asks for tokens. */
  oauth?: StoreOAuthProvider;
  /** The client capabilities this session declared (sorted names). */
  declared: string[];
  /** The same capabilities in full (a modern tools/call adds the Tasks extension to them). */
  capabilities: Record<string, unknown>;
  /** Connected on a remembered modern answer (no probe): its first request is the proof. */
  priorModern?: boolean;
}

export class SessionOpener {
  /** The definition of the connect in progress: `configured` with its `!command` values run. */
  private def: ServerDefinition;
  private readonly eras: ProtocolEraStore;

  constructor(
    private readonly configured: ServerDefinition,
    private readonly tail: StderrTail,
    private readonly onStderrLine: (line: string) => void,
    private readonly hub: EventHub,
    private readonly options: McpConnectorOptions,
    /** Answers the server's requests; a 2026-07-28 task's input requests reach it too. */
    readonly host?: HostRequests,
  ) {
    this.def = configured;
    this.eras = options.protocolEras ?? memoryProtocolEraStore();
  }

  private readonly learnSecrets = (values: string[]) => this.options.secrets?.add(values);

  /** A remembered era turned out wrong: the next open asks the server again. */
  forgetEra(): Promise<void> {
    return this.eras.forget(this.configured);
  }

  /** Connects with the configured transport; for URL servers, Streamable HTTP falls back to SSE on 404/405. */
  async open(signal: AbortSignal, only?: TransportKind): Promise<Session> {
    this.def = await withCommandValues(this.configured, this.learnSecrets, signal);
    const def = this.def;
    if (def.transport === 'stdio' || def.transport === 'socket') return this.attempt(def.transport, signal);
    if (!def.url) throw new ConnectError('config', `Server "${def.name}" has no url`);
    try {
      new URL(def.url);
    } catch {
      throw new ConnectError('config', `Server "${def.name}" has an invalid url`);
    }
    if (only === 'sse' || def.transport === 'sse') return this.attempt('sse', signal);
    try {
      return await this.attempt('streamable-http', signal);
    } catch (error) {
      if (
        only === undefined &&
        error instanceof ConnectError &&
        (error.status === 404 || error.status === 405)
      ) {
        try {
          return await this.attempt('sse', signal);
        } catch (sseError) {
          if (!(sseError instanceof ConnectError) || sseError.kind === 'aborted') throw sseError;
          const message = `${sseError.message} (Streamable HTTP answered HTTP ${error.status}; the SSE fallback failed too)`;
          throw new ConnectError(
            sseError.kind,
            message,
            sseError.status === undefined ? {} : { status: sseError.status },
          );
        }
      }
      throw error;
    }
  }

  private attempt(kind: TransportKind, signal: AbortSignal): Promise<Session> {
    const def = this.def;
    if (kind === 'stdio' && def.cwd !== undefined && !isDirectory(def.cwd)) {
      throw new ConnectError('config', `Server "${def.name}" has a cwd that is not a directory: ${def.cwd}`);
    }
    // Each connect starts anew: its stderr replaces the last one's.
    this.tail.clear();
    return connectInEra(def, kind, this.eras, (plan) => this.attemptIn(kind, signal, plan));
  }

  private async attemptIn(kind: TransportKind, signal: AbortSignal, plan: EraPlan): Promise<Session> {
    const def = this.def;
    this.tail.nextProcess();
    const session = this.createSession(kind, plan);
    if (plan.prior?.kind === 'modern') session.priorModern = true;
    const { client, transport } = session;
    const onAbort = () => void closeSession(session, this.options, false);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) throw signal.reason;
      const prior = plan.prior ? { prior: plan.prior } : {};
      await raceAbort(client.connect(transport, { signal, timeout: def.startupTimeoutMs, ...prior }), signal);
      listenForChanges(client, () => session.retired === true);
      return session;
    } catch (error) {
      // A process that died while we were talking to it: let its exit be recorded before classifying.
      const timedOut = isRequestTimeout(error);
      if (session.process && !signal.aborted && !timedOut) await session.process.waitForExit(250);
      await closeSession(session, this.options, false);
      if (session.oauth && !signal.aborted && isAuthError(error)) {
        throw new ConnectError(
          'auth',
          needsAuthMessage(def, session.oauth.signInNeed(), 401, this.options.surface),
          { status: 401 },
        );
      }
      throw toConnectError(error, def, kind, signal, this.tail, session.process);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private createSession(kind: TransportKind, plan: EraPlan): Session {
    const capabilities = clientCapabilities(this.host);
    const client = new Client(CLIENT_INFO, {
      capabilities,
      ...(plan.negotiation ? { versionNegotiation: plan.negotiation } : {}),
    });
    installHostRequests(client, this.host);
    client.setNotificationHandler('notifications/tools/list_changed', async () => {
      this.hub.emit({ type: 'tools-changed' });
    });
    client.setNotificationHandler('notifications/resources/list_changed', async () => {
      this.hub.emit({ type: 'resources-changed' });
    });
    client.setNotificationHandler('notifications/prompts/list_changed', async () => {
      this.hub.emit({ type: 'prompts-changed' });
    });
    // Transport hiccups (a dropped GET stream that the SDK retries, an unparsable SSE event) are not
    // fatal; the request that suffers from them rejects on its own.
    client.onerror = () => {};
    const session: Session = {
      client,
      kind,
      transport: undefined as unknown as Transport,
      declared: Object.keys(capabilities).sort(),
      capabilities,
    };
    let callStreams: CallStreams | undefined;
    if (kind === 'stdio') {
      const process = this.createProcess();
      session.process = process;
      session.transport = new GroupStdioTransport(process, (line) => {
        this.tail.addLine(line);
        this.onStderrLine(line);
      });
    } else if (kind === 'socket') {
      if (!this.def.socket) throw new ConnectError('config', `Server "${this.def.name}" has no socket`);
      session.transport = new SocketTransport(this.def.socket, (line) => this.tail.addLine(line));
    } else {
      const url = new URL(this.def.url!);
      const requestInit: RequestInit = { headers: httpHeaders(this.def) };
      const fetch = serverFetch(this.def, this.learnSecrets);
      if (usesOAuth(this.def)) {
        const store = this.options.tokenStore ?? defaultTokenStore();
        session.oauth = new StoreOAuthProvider(this.def, store, undefined, fetch);
      }
      const base = session.oauth ? session.oauth.fetch : fetch;
      // A call whose response stream is cut fails at once instead of waiting for its timeout.
      if (kind === 'streamable-http') callStreams = new CallStreams();
      const auth = {
        ...(session.oauth ? { authProvider: session.oauth } : {}),
        fetch: callStreams ? callStreams.fetch(base) : base,
      };
      session.transport =
        kind === 'sse'
          ? new SSEClientTransport(url, { requestInit, ...auth })
          : new StreamableHTTPClientTransport(url, { requestInit, ...auth });
    }
    const transport = session.transport;
    if (this.options.trace) traceTransport(transport, this.options.trace.sink(this.def.name, kind));
    callStreams?.attach(transport);
    boundListedSchemas(transport);
    catchCreatedTasks(transport);
    const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version: string) => {
      session.protocolVersion = version;
      setProtocolVersion?.(version);
    };
    return session;
  }

  private createProcess(): StdioProcess {
    const def = this.def;
    if (!def.command) throw new ConnectError('config', `Server "${def.name}" has no command`);
    // A user's server whose launcher reads its working folder does not start in the project.
    const { env, cwd } = guardLaunch(def, {
      ...(def.inheritEnv ? inheritedEnvironment() : getDefaultEnvironment()),
      ...def.env,
    });
    return new StdioProcess({
      command: def.command,
      args: def.args,
      env,
      ...(cwd === undefined ? {} : { cwd }),
      tail: this.tail,
      onStderrLine: this.onStderrLine,
      ...(this.options.stdinGraceMs === undefined ? {} : { stdinGraceMs: this.options.stdinGraceMs }),
      ...(this.options.killGraceMs === undefined ? {} : { killGraceMs: this.options.killGraceMs }),
    });
  }
}

/** `inheritEnv: true`: this process's whole environment. */
function inheritedEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function httpHeaders(def: ServerDefinition): Record<string, string> {
  const headers: Record<string, string> = { ...def.headers };
  if (def.bearerToken && (def.auth === 'bearer' || def.auth === undefined)) {
    for (const key of Object.keys(headers)) if (key.toLowerCase() === 'authorization') delete headers[key];
    headers.Authorization = `Bearer ${def.bearerToken}`;
  }
  return headers;
}

export async function closeSession(
  session: Session,
  options: McpConnectorOptions,
  graceful: boolean,
): Promise<void> {
  if (session.process && !graceful) {
    // Start the hard stop first; the client's close below then joins it.
    const stopped = session.process.stop({ graceful: false });
    await Promise.allSettled([session.client.close(), stopped]);
    return;
  }
  const transport = session.transport;
  if (graceful && transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    await Promise.race([
      transport.terminateSession().catch(() => {}),
      sleep(options.terminateSessionMs ?? 500),
    ]);
  }
  await session.client.close().catch(() => {});
  if (session.process) await session.process.stop({ graceful }).catch(() => {});
}

/** Rejects as soon as the signal aborts, even if `promise` never settles (an SSE start can hang). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
