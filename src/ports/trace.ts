// The protocol trace's contract (`trace`): what a connection records and where it goes. The
// JSONL writer is src/adapters/mcp/trace.ts.

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
