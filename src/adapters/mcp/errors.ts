// Classifying what the SDK, fetch and the process throw into our ConnectError / CallError vocabulary.

import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SseError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { ServerDefinition } from '../../config/types.ts';
import { ConnectError, type ServerCatalog } from '../../ports/mcp.ts';
import { startupTimeoutText } from '../../server-error-text.ts';
import { SignInRequiredError } from './auth/provider.ts';
import { HeadersCommandError } from './request-headers-command.ts';
import type { StderrTail } from './stderr-tail.ts';
import type { StdioProcess } from './stdio-process.ts';

export function toConnectError(
  error: unknown,
  def: ServerDefinition,
  kind: ServerCatalog['transport'],
  signal: AbortSignal,
  tail: StderrTail,
  process?: StdioProcess,
): ConnectError {
  if (error instanceof ConnectError) return error;
  const stderr = kind === 'stdio' ? { stderrTail: tail.text() } : {};
  const name = def.name;
  if (signal.aborted) return new ConnectError('aborted', `Connecting to "${name}" was aborted`, stderr);
  if (kind === 'stdio') {
    if (process !== undefined && process.pid === undefined) {
      const code = networkCode(error);
      const why =
        code === 'ENOENT'
          ? `command not found: ${def.command} (is it installed and on PATH?)`
          : code === 'EACCES'
            ? `permission denied running ${def.command}`
            : describe(error);
      return new ConnectError('spawn', `Could not start "${name}": ${why}`, stderr);
    }
    const exit = process?.exitInfo;
    if (exit?.unexpected) {
      return new ConnectError(
        'exited',
        `"${name}" ${describeExit(exit.code, exit.signal, tail)} during startup`,
        stderr,
      );
    }
  }
  if (kind === 'socket' && errnoCode(error) !== undefined) {
    return new ConnectError('network', `Cannot connect to "${name}": ${socketProblem(error, def.socket)}`);
  }
  if (isAuthError(error)) {
    return new ConnectError('auth', `Server "${name}" needs authentication (HTTP 401)`, { status: 401 });
  }
  const status = httpStatus(error);
  if (status !== undefined) {
    return new ConnectError('http', `Server "${name}" answered HTTP ${status}`, { status });
  }
  if (isRequestTimeout(error)) {
    return new ConnectError('timeout', `"${name}" ${startupTimeoutText(def.startupTimeoutMs)}`, stderr);
  }
  const headersCommand = causeOfType(error, HeadersCommandError);
  if (headersCommand !== undefined) {
    return new ConnectError('spawn', `Cannot connect to "${name}": ${headersCommand.message}`);
  }
  const untrusted = kind !== 'stdio' ? untrustedCertificateCode(error) : undefined;
  if (untrusted !== undefined) {
    const why = def.caFile
      ? `its TLS certificate is not signed by the CA in caFile ${def.caFile} (${untrusted})`
      : `its TLS certificate is not trusted (${untrusted}); if it comes from a private CA, set "caFile" to that CA's PEM file`;
    return new ConnectError('network', `Cannot reach "${name}": ${why}`);
  }
  if (kind !== 'stdio' && networkCode(error) !== undefined) {
    return new ConnectError('network', `Cannot reach "${name}": ${describe(error)}`);
  }
  return new ConnectError(
    'protocol',
    `"${name}" did not complete the MCP handshake: ${describe(error)}`,
    stderr,
  );
}

/** Scheme, host and port only: a URL's path or query may carry a token. */
export function originOf(url: string | undefined): string {
  try {
    return new URL(url ?? '').origin;
  } catch {
    return 'the server';
  }
}

export function expiryReason(error: unknown): string {
  const status = httpStatus(error);
  if (status !== undefined) return `HTTP ${status}`;
  const message = error instanceof Error ? error.message : String(error);
  return /server not initialized/i.test(message) ? 'server not initialized' : 'session not found';
}

/** The JSON-RPC codes the SDK v1 used for its local timeout and close errors (kept on CallError.code). */
export const REQUEST_TIMEOUT_CODE = -32001;
export const CONNECTION_CLOSED_CODE = -32000;

export function isConnectionClosed(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed;
}

export function isRequestTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}

/** The server answered that it does not implement the method. */
export function isMethodNotFound(error: unknown): boolean {
  return error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound;
}

export function isAuthError(error: unknown): boolean {
  return (
    error instanceof UnauthorizedError || error instanceof SignInRequiredError || httpStatus(error) === 401
  );
}

export function httpStatus(error: unknown): number | undefined {
  if (error instanceof SdkHttpError) return validStatus(error.status);
  if (error instanceof SseError) return validStatus(error.code);
  // SSEClientTransport.send throws a plain Error naming the status.
  const match = error instanceof Error ? /\(HTTP (\d{3})\)/.exec(error.message) : null;
  return match ? Number(match[1]) : undefined;
}

function validStatus(status: unknown): number | undefined {
  return typeof status === 'number' && status >= 100 && status < 600 ? status : undefined;
}

/** What isSessionExpired reads of an open session (a shape, so this file needs not import session.ts). */
interface OpenSession {
  kind: ServerCatalog['transport'];
  transport: { sessionId?: string | undefined };
}

export function isSessionExpired(error: unknown, session: OpenSession): boolean {
  const status = httpStatus(error);
  const sessionId = session.transport.sessionId;
  if (status === 404 && (sessionId !== undefined || session.kind === 'sse')) return true;
  const message = error instanceof Error ? error.message : '';
  return /server not initialized|session not found|no valid session|session (?:has )?expired|unknown session|invalid session/i.test(
    message,
  );
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOENT',
  'EACCES',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

/** The system error code of a network or spawn failure, looking through `cause` chains (fetch wraps them). */
export function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Object; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) return 'FETCH_FAILED';
  if (error instanceof SseError && error.code === undefined) return 'SSE_FAILED';
  return undefined;
}

export function isValidationError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ZodError' || error.name === '$ZodError');
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null, tail: StderrTail): string {
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  const last = tail.lastLine();
  return last ? `${how} (stderr: ${last})` : how;
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = networkCode(error);
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    const message = stripMcpPrefix(error.message);
    return code && !message.includes(code) && !cause.includes(code)
      ? `${message}${cause} (${code})`
      : `${message}${cause}`;
  }
  return String(error);
}

export function stripMcpPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, '');
}

/** Why a Unix socket refused us, naming its path (rmcp-mux owns it; we never start it). */
function socketProblem(error: unknown, path: string | undefined): string {
  const code = errnoCode(error);
  const at = `socket ${path}`;
  if (code === 'ENOENT') return `no ${at} (start the server or rmcp-mux service that listens there)`;
  if (code === 'ECONNREFUSED') return `nothing listens on ${at} (is its server or rmcp-mux running?)`;
  if (code === 'EACCES' || code === 'EPERM') return `permission denied on ${at}`;
  if (code === 'ENOTSOCK') return `${path} is not a socket`;
  return `${at}: ${describe(error)}`;
}

function errnoCode(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}

const UNTRUSTED_CERTIFICATE_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/** The TLS code when the server's certificate chain is not trusted (fetch wraps it in `cause`). */
function untrustedCertificateCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Object; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNTRUSTED_CERTIFICATE_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function causeOfType<T>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Object; depth++) {
    if (current instanceof type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
