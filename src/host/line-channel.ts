// One JSON message per line over a socket, both ways: what the host and its sessions speak.

import type { Duplex } from 'node:stream';
import { LineSplitter } from '../adapters/mcp/line-splitter.ts';

/** A connected socket, or a host's birth line (./birth-line.ts): both ways, one stream. */
export type LineSocket = Duplex & {
  setNoDelay?(noDelay: boolean): unknown;
  ref(): unknown;
  unref(): unknown;
};

/** Wraps a connected socket: `onMessage` gets each parsed line; a line that is not JSON ends the channel. */
export class LineChannel<In, Out> {
  private readonly lines = new LineSplitter();
  private closed = false;

  constructor(
    readonly socket: LineSocket,
    onMessage: (message: In) => void,
    onClose: () => void,
  ) {
    socket.setNoDelay?.(true);
    socket.on('data', (chunk: Buffer) => {
      for (const line of this.lines.push(chunk)) {
        let message: In;
        try {
          message = JSON.parse(line) as In;
        } catch {
          socket.destroy();
          return;
        }
        onMessage(message);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      onClose();
    });
  }

  get open(): boolean {
    return !this.closed && !this.socket.destroyed && this.socket.writable;
  }

  send(message: Out): boolean {
    if (!this.open) return false;
    this.socket.write(`${JSON.stringify(message)}\n`);
    return true;
  }

  close(): void {
    this.socket.end();
  }
}
