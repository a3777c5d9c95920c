// The error a live Connection's requests reject with (callTool, readResource, listTools, listResources).
// `kind` lets callers decide what to tell the model and whether the connection is still usable.
// No SDK import here, so machines, actors and tools can check `instanceof CallError` cheaply.

export type CallErrorKind =
  | 'aborted' // the caller's AbortSignal fired; the server was sent notifications/cancelled
  | 'timeout' // no answer within timeoutMs; the server was sent notifications/cancelled
  | 'dropped' // the connection dropped mid-call after the server got the request: it may have run
  | 'closed' // the connection is gone (process exited, session lost and not recoverable, close() called)
  | 'auth' // the server wants (new) credentials: 401 / UnauthorizedError
  | 'server' // the server answered with a JSON-RPC error (unknown tool, invalid params, ...)
  | 'protocol' // the answer was not valid MCP
  | 'http' // an HTTP status other than 401 / session expiry
  | 'network' // refused, reset, DNS, TLS
  | 'unsupported'; // something this client cannot do yet (e.g. task-required tools)

export class CallError extends Error {
  readonly kind: CallErrorKind;
  /** JSON-RPC error code or HTTP status, when there is one. */
  readonly code?: number;
  constructor(kind: CallErrorKind, message: string, extra: { code?: number; cause?: unknown } = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'CallError';
    this.kind = kind;
    if (extra.code !== undefined) this.code = extra.code;
  }
}
