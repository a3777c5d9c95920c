// Where redacted inspection events are written: a JSONL file or a loopback WebSocket. Both are Stately
// inspector adapters (start / stop / send) plus an awaitable close. Neither ever throws: a failure is
// reported once through `onError` and the events are dropped.

import {
  closeSync,
  constants,
  createWriteStream,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  type WriteStream,
} from 'node:fs';
import { dirname } from 'node:path';
import WebSocket from 'ws';
import { redactUrl } from '../redact/index.ts';
import { plainLine } from '../terminal-text.ts';

export interface Sink {
  start(): void;
  stop(): void;
  send(event: unknown): void;
  /** Flushes what can be flushed and releases the file or socket. */
  close(): Promise<void>;
}

export type SinkErrorReporter = (message: string) => void;

/** Appends one JSON event per line. */
export function createJsonlSink(file: string, onError: SinkErrorReporter): Sink {
  let stream: WriteStream | undefined;
  let failed = false;

  const fail = (error: unknown) => {
    if (failed) return;
    failed = true;
    onError(`MCP inspection: cannot write ${file}: ${(error as Error)?.message ?? String(error)}`);
  };

  const open = (): WriteStream | undefined => {
    if (stream || failed) return stream;
    try {
      mkdirSync(dirname(file), { recursive: true });
      stream = createWriteStream('', { fd: openPrivateFile(file), encoding: 'utf8' });
      stream.on('error', fail);
    } catch (error) {
      fail(error);
    }
    return stream;
  };

  return {
    start: () => void open(),
    stop: () => {},
    send(event) {
      const out = open();
      if (!out || failed) return;
      try {
        // Redacted already; a `tail -f` of the file must not run what a server put in its text.
        out.write(`${plainLine(JSON.stringify(event))}\n`);
      } catch (error) {
        fail(error);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        const out = stream;
        stream = undefined;
        failed = true;
        if (!out || out.destroyed) return resolve();
        out.end(() => resolve());
        out.once('error', () => resolve());
      }),
  };
}

/**
 * Opens the file for appending, readable by the user only (0600, also when it existed), never through
 * a symlink (O_NOFOLLOW, and lstat where the platform has no such flag) and only when it is a regular
 * file (O_NONBLOCK: a FIFO does not hang the open).
 */
function openPrivateFile(file: string): number {
  const noFollow = constants.O_NOFOLLOW ?? 0;
  if (noFollow === 0 && lstatSafe(file)?.isSymbolicLink()) throw new Error('it is a symbolic link');
  let fd: number;
  try {
    fd = openSync(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | noFollow | (constants.O_NONBLOCK ?? 0),
      0o600,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new Error('it is a symbolic link');
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new Error('it is not a regular file');
    fchmodSync(fd, 0o600);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function lstatSafe(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

const MAX_BUFFERED = 500;
const RETRY_MS = [250, 1000, 2000, 5000];
const CLOSE_GRACE_MS = 2000;

/**
 * Sends each event as one JSON text frame. Events are buffered (the newest 500) while the socket is not
 * open, and the socket reconnects with an unref'd backoff so a missing inspector never keeps Pi alive.
 * (The stock `createWebSocketInspector` adapter retries forever, even after stop, on a ref'd timer.)
 */
export function createWebSocketSink(url: string, onError: SinkErrorReporter): Sink {
  let socket: WebSocket | undefined;
  let retry: NodeJS.Timeout | undefined;
  let attempt = 0;
  let stopped = false;
  let reported = false;
  const buffer: string[] = [];

  const connect = () => {
    if (stopped) return;
    const ws = new WebSocket(url, { handshakeTimeout: 5000 });
    socket = ws;
    ws.on('open', () => {
      // An inspector must never keep Pi running: the open socket does not hold the event loop.
      (ws as unknown as { _socket?: { unref?: () => void } })._socket?.unref?.();
      attempt = 0;
      reported = false;
      for (const frame of buffer.splice(0)) ws.send(frame);
    });
    ws.on('error', (error) => {
      if (!reported && !stopped) {
        reported = true;
        onError(`MCP inspection: cannot reach ${redactUrl(url)}: ${error.message}`);
      }
    });
    ws.on('close', () => {
      if (socket === ws) socket = undefined;
      if (stopped) return;
      const delay = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!;
      attempt += 1;
      retry = setTimeout(connect, delay);
      retry.unref();
    });
  };

  const stop = () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    retry = undefined;
  };

  return {
    start: connect,
    stop,
    send(event) {
      if (stopped) return;
      let frame: string;
      try {
        frame = JSON.stringify(event);
      } catch {
        return;
      }
      if (socket?.readyState === WebSocket.OPEN) {
        socket.send(frame);
        return;
      }
      buffer.push(frame);
      if (buffer.length > MAX_BUFFERED) buffer.shift();
    },
    close: () =>
      new Promise<void>((resolve) => {
        stop();
        const ws = socket;
        socket = undefined;
        buffer.length = 0;
        if (!ws || ws.readyState === WebSocket.CLOSED) return resolve();
        const force = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
        force.unref();
        ws.once('close', () => {
          clearTimeout(force);
          resolve();
        });
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close(1000, 'inspection stopped');
      }),
  };
}
