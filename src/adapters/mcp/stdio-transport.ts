// The SDK Transport over our process-group-aware stdio process.

import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { serializeMessage } from '@modelcontextprotocol/client';
import { LineInbox } from './line-inbox.ts';
import type { StdioProcess } from './stdio-process.ts';

/** The SDK Transport over our process-group-aware stdio process. */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private readonly inbox: LineInbox;

  constructor(
    private readonly process: StdioProcess,
    /** Where non-JSON-RPC stdout lines go (the stderr tail and debug output), prefixed `[stdout]`. */
    onNoise: (line: string) => void,
  ) {
    this.inbox = new LineInbox((line) => onNoise(`[stdout] ${line}`));
    this.inbox.onmessage = (message) => this.onmessage?.(message);
    this.inbox.onclose = () => this.onclose?.();
    process.onLine = (line) => this.inbox.receive(line);
    process.onError = (error) => this.onerror?.(error);
    // Whatever the server said before it went away is delivered before the close.
    process.onExit = () => this.inbox.close();
  }

  /** With `stderr`, tells the SDK this is stdio: a server silent on `server/discover` is a legacy one. */
  get pid(): number | null {
    return this.process.pid ?? null;
  }
  readonly stderr = null;

  async start(): Promise<void> {
    await this.process.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.process.write(serializeMessage(message));
  }

  close(): Promise<void> {
    return this.process.stop({ graceful: true });
  }
}
