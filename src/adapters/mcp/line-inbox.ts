// Newline-delimited JSON-RPC in, one message per macrotask out: shared by the stdio and socket
// transports.

import { type JSONRPCMessage, parseJSONRPCMessage } from '@modelcontextprotocol/client';

/**
 * Messages are handed to the SDK one per macrotask: the SDK runs notification handlers in a microtask
 * but settles responses at once, so a progress notification and the response right behind it in the
 * same chunk would otherwise lose the progress (the request is already gone when it runs).
 */
export class LineInbox {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  private readonly inbox: JSONRPCMessage[] = [];
  private delivering = false;
  private closedAfterInbox = false;

  /** `onNoise` gets lines that are not JSON-RPC messages. */
  constructor(private readonly onNoise: (line: string) => void) {}

  /** One complete line (without its newline). */
  receive(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(JSON.parse(line));
    } catch {
      this.onNoise(line);
      return;
    }
    this.inbox.push(message);
    if (this.delivering) return;
    this.delivering = true;
    setImmediate(() => this.deliverNext());
  }

  /** The peer is gone: whatever it said before is delivered first, then `onclose` runs. */
  close(): void {
    if (this.closedAfterInbox) return;
    this.closedAfterInbox = true;
    if (!this.delivering) this.onclose?.();
  }

  private deliverNext(): void {
    const message = this.inbox.shift();
    if (message) this.onmessage?.(message);
    if (this.inbox.length > 0) {
      setImmediate(() => this.deliverNext());
      return;
    }
    this.delivering = false;
    if (this.closedAfterInbox) this.onclose?.();
  }
}
