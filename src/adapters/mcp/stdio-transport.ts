// The SDK Transport over our process-group-aware stdio process.

import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { StdioProcess } from './stdio-process.ts';

/**
 * The SDK Transport over our process-group-aware stdio process.
 *
 * Messages are handed to the SDK one per macrotask: the SDK runs notification handlers in a microtask
 * but settles responses at once, so a progress notification and the response right behind it in the
 * same stdout chunk would otherwise lose the progress (the request is already gone when it runs).
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private readonly inbox: JSONRPCMessage[] = [];
  private delivering = false;
  private closedAfterInbox = false;

  constructor(
    private readonly process: StdioProcess,
    /** Where non-JSON-RPC stdout lines go (the stderr tail and debug output), prefixed `[stdout]`. */
    private readonly onNoise: (line: string) => void,
  ) {
    process.onLine = (line) => this.receive(line);
    process.onError = (error) => this.onerror?.(error);
    process.onExit = () => {
      // Whatever the server said before it went away is delivered before the close.
      this.closedAfterInbox = true;
      if (!this.delivering) this.onclose?.();
    };
  }

  private deliver(message: JSONRPCMessage): void {
    this.inbox.push(message);
    if (this.delivering) return;
    this.delivering = true;
    setImmediate(() => this.deliverNext());
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

  async start(): Promise<void> {
    await this.process.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.process.write(serializeMessage(message));
  }

  close(): Promise<void> {
    return this.process.stop({ graceful: true });
  }

  private receive(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.onNoise(`[stdout] ${line}`);
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      this.onNoise(`[stdout] ${line}`);
      return;
    }
    this.deliver(message.data);
  }
}
