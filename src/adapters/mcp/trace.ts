// `trace` (pi-mcp-adapter): a metadata-only JSONL protocol trace. Each line says which server, which
// direction, request / response / notification, the method, a numeric id, the outcome, the size in
// bytes and, for responses, how long the request took. Never payloads, arguments, results, URLs or
// auth. One file per session, bounded by maxBytes and maxEvents (tracing stops at the bound).

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { TraceEvent, TraceLog, TraceSink } from '../../ports/trace.ts';
import type { SecretValues } from '../../redact/index.ts';
import { plainLine } from '../../terminal-text.ts';

/** `file` as configured (relative to the session's folder), else `.pi/mcp-traces/mcp-<time>-<random>.jsonl`. */
export function traceFile(cwd: string, file: string | undefined): string {
  if (file) return isAbsolute(file) ? file : resolve(cwd, file);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return join(cwd, '.pi', 'mcp-traces', `mcp-${stamp}-${randomBytes(3).toString('hex')}.jsonl`);
}

/**
 * `project`: the session's folder. A trace file inside it is created only where the project's own
 * symlinks do not lead out of it (a cloned `.pi` → `~/.config/…` must not receive files), and never
 * through a symlink at the file itself.
 */
export function createTraceLog(
  file: string,
  limits: { maxBytes: number; maxEvents: number },
  secrets: SecretValues,
  project?: string,
): TraceLog {
  let bytes = 0;
  let events = 0;
  let full = false;
  // The file starts empty for this session; lines are appended in order, never through a symlink.
  let writing: Promise<void> = openTraceFile(file, project)
    .then((handle) => handle.close())
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
    writing = writing
      .then(() => fs.promises.appendFile(file, line, { flag: APPEND_NO_FOLLOW }))
      .catch(() => {});
  };
  return {
    file,
    sink: (server, transport) => (event) =>
      write(
        `${plainLine(secrets.redact(JSON.stringify({ time: new Date().toISOString(), server, transport, ...event })))}\n`,
      ),
    flush: () => writing,
  };
}

const APPEND_NO_FOLLOW = fs.constants.O_WRONLY | fs.constants.O_APPEND | (fs.constants.O_NOFOLLOW ?? 0);

async function openTraceFile(file: string, project: string | undefined): Promise<fs.promises.FileHandle> {
  const target = resolve(file);
  const root = project === undefined ? undefined : resolve(project);
  if (root !== undefined && isInside(target, root)) {
    const realRoot = await fs.promises.realpath(root);
    // Create the missing folders one at a time, each checked to resolve inside the project.
    const missing: string[] = [];
    let dir = dirname(target);
    while (!(await exists(dir))) {
      missing.unshift(dir);
      dir = dirname(dir);
    }
    for (const next of [dir, ...missing]) {
      if (next !== dir)
        await fs.promises.mkdir(next).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e;
        });
      const real = await fs.promises.realpath(next);
      if (real !== realRoot && !isInside(real, realRoot))
        throw new Error(`${next} leads out of the project (${real})`);
    }
  } else {
    await fs.promises.mkdir(dirname(target), { recursive: true });
  }
  const { O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW } = fs.constants;
  return fs.promises.open(target, O_WRONLY | O_CREAT | O_TRUNC | (O_NOFOLLOW ?? 0), 0o600);
}

function exists(path: string): Promise<boolean> {
  return fs.promises.lstat(path).then(
    () => true,
    () => false,
  );
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * Records what passes through `transport` without changing it: `send` and the `onmessage` the client
 * installs are wrapped in place (the transport keeps its class, which the adapter checks).
 */
export function traceTransport(transport: Transport, sink: TraceSink): void {
  const started = new Map<number, { method: string; at: number }>();
  const describe = (message: JSONRPCMessage, direction: TraceEvent['direction']): TraceEvent => {
    const bytes = messageBytes(message);
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
  // Whoever sets onmessage may chain the one it read before (the SDK does, after CallStreams): each
  // handler is wrapped, and a message is recorded once, by the outermost wrapper it passes through.
  let wrapped: Transport['onmessage'];
  let delivering = false;
  const wrap =
    (handler: NonNullable<Transport['onmessage']>): Transport['onmessage'] =>
    (message, extra) => {
      if (delivering) return handler(message, extra);
      sink(describe(message, 'inbound'));
      delivering = true;
      try {
        handler(message, extra);
      } finally {
        delivering = false;
      }
    };
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => wrapped,
    set: (value: Transport['onmessage']) => {
      wrapped = value ? wrap(value) : undefined;
    },
  });
}

/** Its size as sent; a message too deeply nested to write again (a hostile schema) counts as 0. */
function messageBytes(message: JSONRPCMessage): number {
  try {
    return Buffer.byteLength(JSON.stringify(message));
  } catch {
    return 0;
  }
}

function key(direction: TraceEvent['direction'], id: number): number {
  // Both sides number their requests from 0: outbound ids are kept positive, inbound negative.
  return direction === 'outbound' ? id + 1 : -(id + 1);
}
