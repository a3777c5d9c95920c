// `trace` (pi-mcp-adapter): a metadata-only JSONL protocol trace. Each line says which server, which
// direction, request / response / notification, the method, a numeric id, the outcome, the size in
// bytes and, for responses, how long the request took. Never payloads, arguments, results, URLs or
// auth. One file per session, bounded by maxBytes and maxEvents (tracing stops at the bound).

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { redact } from '../../redact.ts';

export interface TraceEvent {
  direction: 'outbound' | 'inbound';
  kind: 'request' | 'response' | 'notification';
  method?: string;
  id?: number;
  status: 'sent' | 'received' | 'error';
  errorCode?: number;
  bytes: number;
  durationMs?: number;
}

/** Receives the events of one server's connection. */
export type TraceSink = (event: TraceEvent) => void;

export interface TraceLog {
  readonly file: string;
  sink(server: string, transport: string): TraceSink;
  /** Resolves when every line recorded so far is written. */
  flush(): Promise<void>;
}

/** `file` as configured (relative to the session's folder), else `.pi/mcp-traces/mcp-<time>-<random>.jsonl`. */
export function traceFile(cwd: string, file: string | undefined): string {
  if (file) return isAbsolute(file) ? file : resolve(cwd, file);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return join(cwd, '.pi', 'mcp-traces', `mcp-${stamp}-${randomBytes(3).toString('hex')}.jsonl`);
}

export function createTraceLog(file: string, limits: { maxBytes: number; maxEvents: number }): TraceLog {
  let bytes = 0;
  let events = 0;
  let full = false;
  // The file starts empty for this session; lines are appended in order.
  let writing: Promise<void> = fs.promises
    .mkdir(dirname(file), { recursive: true })
    .then(() => fs.promises.writeFile(file, ''))
    .catch(() => {
      full = true;
    });
  const write = (line: string) => {
    const size = Buffer.byteLength(line);
    if (full || events >= limits.maxEvents || bytes + size > limits.maxBytes) {
      full = true;
      return;
    }
    bytes += size;
    events++;
    writing = writing.then(() => fs.promises.appendFile(file, line)).catch(() => {});
  };
  return {
    file,
    sink: (server, transport) => (event) =>
      write(`${redact(JSON.stringify({ time: new Date().toISOString(), server, transport, ...event }))}\n`),
    flush: () => writing,
  };
}

/**
 * Records what passes through `transport` without changing it: `send` and the `onmessage` the client
 * installs are wrapped in place (the transport keeps its class, which the adapter checks).
 */
export function traceTransport(transport: Transport, sink: TraceSink): void {
  const started = new Map<number, { method: string; at: number }>();
  const describe = (message: JSONRPCMessage, direction: TraceEvent['direction']): TraceEvent => {
    const bytes = Buffer.byteLength(JSON.stringify(message));
    const m = message as { id?: unknown; method?: unknown; error?: { code?: unknown } };
    const id = typeof m.id === 'number' ? m.id : undefined;
    const status = direction === 'outbound' ? 'sent' : 'received';
    if (typeof m.method === 'string') {
      const kind = m.id === undefined ? 'notification' : 'request';
      if (kind === 'request' && id !== undefined)
        started.set(key(direction, id), { method: m.method, at: performance.now() });
      return { direction, kind, method: m.method, ...(id === undefined ? {} : { id }), status, bytes };
    }
    // A response answers a request that went the other way.
    const request =
      id === undefined ? undefined : started.get(key(direction === 'inbound' ? 'outbound' : 'inbound', id));
    if (request) started.delete(key(direction === 'inbound' ? 'outbound' : 'inbound', id!));
    const code = typeof m.error?.code === 'number' ? m.error.code : undefined;
    return {
      direction,
      kind: 'response',
      ...(request ? { method: request.method } : {}),
      ...(id === undefined ? {} : { id }),
      status: m.error ? 'error' : status,
      ...(code === undefined ? {} : { errorCode: code }),
      bytes,
      ...(request ? { durationMs: Math.round(performance.now() - request.at) } : {}),
    };
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sink(describe(message, 'outbound'));
    return send(message, options);
  };
  let handler: Transport['onmessage'];
  const traced: Transport['onmessage'] = (message, extra) => {
    sink(describe(message, 'inbound'));
    handler?.(message, extra);
  };
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => (handler ? traced : undefined),
    set: (value: Transport['onmessage']) => {
      handler = value;
    },
  });
}

function key(direction: TraceEvent['direction'], id: number): number {
  // Both sides number their requests from 0: outbound ids are kept positive, inbound negative.
  return direction === 'outbound' ? id + 1 : -(id + 1);
}
