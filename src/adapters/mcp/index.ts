// The MCP SDK adapter (this folder is the only code that imports the SDK, @modelcontextprotocol/client,
// the v2 line of @modelcontextprotocol/sdk). It implements the Connection port (../../ports/connection.ts) for
// stdio, Streamable HTTP and legacy SSE servers.
//
// Decisions worth knowing:
// - stdio servers run in their own process group (./stdio-process.ts); closing, aborting or a crash
//   ends the whole group, so npx/uvx wrappers leave no grandchildren.
// - Non-JSON lines on a stdio server's stdout (banners, stray console.log) are ignored, not fatal; they
//   are kept in the stderr tail prefixed with `[stdout]` so /mcp can show them.
// - tools/call gives `client.callTool` the listed tool without its outputSchema: the SDK then mirrors
//   the 2026-07-28 `x-mcp-header` arguments into `Mcp-Param-*` headers, but does not turn a server's
//   missing or sloppy structuredContent into a hard failure (nor break on a schema Ajv cannot compile).
//   Task-required tools run as 2025-11-25 tasks (./task-call.ts); on a 2026-07-28 connection every
//   call declares the Tasks extension and follows the task when the server answers with one
//   (./task-extension.ts). Either way a poll whose stream or connection dropped is asked again
//   (./task-polling.ts): the task id outlives the drop.
// - Expired HTTP sessions (404 on a request carrying a session id, or "Server not initialized" /
//   "Session not found") are renewed once, transparently: new transport, new initialize, the rejected
//   request is sent again. If that fails, the connection reports `closed`.

import type { ServerDefinition } from '../../config/types.ts';
import type { ConnectOptions, Connector } from '../../machines/server-types.ts';
import type { Connection } from '../../ports/connection.ts';
import { ConnectError, type LogLevel } from '../../ports/mcp.ts';
import { McpConnection } from './connection.ts';
import { toConnectError } from './errors.ts';
import { EventHub } from './event-hub.ts';
import { applyLogLevel } from './host-requests.ts';
import { loadCatalog } from './listing.ts';
import { fileProtocolEraStore, memoryProtocolEraStore } from './protocol-eras.ts';
import { closeSession, type McpConnectorOptions, SessionOpener } from './session.ts';
import { StderrTail } from './stderr-tail.ts';

export { CallError } from '../../ports/call-error.ts';
export type { McpConnectorOptions } from './session.ts';

/** Builds a Connector; `connectMcp` is the one with default timings. */
export function createMcpConnector(options: McpConnectorOptions = {}): Connector {
  // Without a file, the era answers live as long as this connector.
  const withEras = options.protocolEras ? options : { ...options, protocolEras: memoryProtocolEraStore() };
  return (definition, connectOptions) => connect(definition, connectOptions, withEras);
}

export const connectMcp: Connector = createMcpConnector();

async function connect(
  def: ServerDefinition,
  { signal, onStderr, onListing, tokenStore, secrets, host, trace, protocolErasFile }: ConnectOptions,
  connectorOptions: McpConnectorOptions,
): Promise<Connection> {
  let options =
    tokenStore && !connectorOptions.tokenStore ? { ...connectorOptions, tokenStore } : connectorOptions;
  if (secrets) options = { ...options, secrets };
  if (protocolErasFile) options = { ...options, protocolEras: fileProtocolEraStore(protocolErasFile) };
  if (trace && def.trace) options = { ...options, trace };
  const tail = new StderrTail();
  const hub = new EventHub();
  const onStderrLine = (line: string) => {
    onStderr?.(line);
    hub.emit({ type: 'stderr', line }, false);
  };
  if (signal.aborted) throw new ConnectError('aborted', `Connecting to "${def.name}" was aborted`);
  // MCP log messages join the stderr tail (what /mcp shows) and go to the host's log.
  const hostRequests = host?.log
    ? {
        ...host,
        log: (level: LogLevel, text: string) => {
          tail.addLine(`[log ${level}] ${text}`);
          host.log?.(level, text);
        },
      }
    : host;
  const opener = new SessionOpener(def, tail, onStderrLine, hub, options, hostRequests);
  try {
    return await openAndList(def, opener, signal, tail, hub, options, host, onListing);
  } catch (error) {
    if (!(error instanceof StaleModernEra)) throw error;
    // The server no longer speaks what it answered last time: ask it again.
    await opener.forgetEra();
    return openAndList(def, opener, signal, tail, hub, options, host, onListing);
  }
}

/** A connect on a remembered modern answer whose first requests failed. */
class StaleModernEra extends Error {}

async function openAndList(
  def: ServerDefinition,
  opener: SessionOpener,
  signal: AbortSignal,
  tail: StderrTail,
  hub: EventHub,
  options: McpConnectorOptions,
  host: ConnectOptions['host'],
  onListing: ConnectOptions['onListing'],
): Promise<Connection> {
  const session = await opener.open(signal);
  onListing?.();
  try {
    await applyLogLevel(session.client, def, signal);
    const { catalog, tools } = await loadCatalog(def, session, signal, (text) => {
      tail.addLine(`[pi-mcp-actors] ${text}`);
      host?.log?.('warning', text);
    });
    return new McpConnection(def, opener, session, catalog, tools, tail, hub, options);
  } catch (error) {
    await closeSession(session, options, false);
    const connectError = toConnectError(error, def, session.kind, signal, tail, session.process);
    if (session.priorModern && connectError.kind !== 'aborted' && connectError.kind !== 'auth') {
      throw new StaleModernEra(connectError.message, { cause: connectError });
    }
    throw connectError;
  }
}
