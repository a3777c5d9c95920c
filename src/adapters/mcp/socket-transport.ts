// The SDK Transport over a Unix domain socket speaking newline-delimited JSON-RPC, as stdio does
// (pi-mcp-adapter's `socket`, meant for an rmcp-mux service socket). We own only our end: closing
// ends our connection, never the server behind the socket.

import { connect, type Socket } from 'node:net';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { serializeMessage } from '@modelcontextprotocol/client';
import { LineInbox } from './line-inbox.ts';
import { LineSplitter } from './line-splitter.ts';

const MAX_LINE_BYTES = 10 * 1024 * 1024;
const CLOSE_GRACE_MS = 2_000;

export class SocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private socket: Socket | undefined;
  private readonly lines = new LineSplitter();
  private readonly inbox: LineInbox;

  constructor(
    readonly path: string,
    /** Lines that are not JSON-RPC messages (kept in the error tail like a stdio server's noise). */
    onNoise: (line: string) => void,
  ) {
    this.inbox = new LineInbox((line) => onNoise(`[socket] ${line}`));
    this.inbox.onmessage = (message) => this.onmessage?.(message);
    this.inbox.onclose = () => this.onclose?.();
  }

  start(): Promise<void> {
    if (this.socket) return Promise.reject(new Error('SocketTransport already started'));
    return new Promise<void>((resolve, reject) => {
      const socket = connect(this.path);
      this.socket = socket;
      let connected = false;
      socket.once('connect', () => {
        connected = true;
        resolve();
      });
      socket.on('data', (chunk: Buffer) => this.read(chunk));
      socket.on('error', (error) => {
        if (!connected) reject(error);
        else this.onerror?.(error);
      });
      socket.on('close', () => {
        const rest = this.lines.end();
        if (rest !== undefined) this.inbox.receive(rest);
        // Whatever the server said before the socket closed is delivered before the close.
        if (connected) this.inbox.close();
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.destroyed || !socket.writable) {
      return Promise.reject(new Error(`the socket ${this.path} is not connected`));
    }
    return new Promise<void>((resolve, reject) => {
      socket.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Ends our side; waits (briefly) for the socket to close. */
  close(): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.destroyed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
      timer.unref();
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.end();
    });
  }

  private read(chunk: Buffer): void {
    for (const line of this.lines.push(chunk)) this.inbox.receive(line);
    if (this.lines.pending > MAX_LINE_BYTES) {
      this.lines.reset();
      this.onerror?.(
        new Error(`The server sent a line longer than ${MAX_LINE_BYTES} bytes without a newline`),
      );
      this.socket?.destroy();
    }
  }
}
