// Streamable HTTP: a request whose POST answer is an SSE stream that breaks (or ends) before its
// response arrived. The SDK only reports `onerror("SSE stream disconnected…")` and leaves the request
// waiting for its whole timeout; it cannot resume a stream without an event id. This watches each
// POST's stream through the transport's fetch and, when one is lost, answers its still-open requests
// with a JSON-RPC error through the transport's own onmessage, so each rejects at once (McpError
// STREAM_LOST_CODE, which connection.ts reports as a call that dropped mid-way).

import type { FetchLike, Transport } from '@modelcontextprotocol/client';

/** A JSON-RPC error code of our own (implementation-defined range): the request's stream was lost. */
export const STREAM_LOST_CODE = -32_099;

type Id = string | number;

export class CallStreams {
  /** Requests sent and not answered yet. */
  private readonly open = new Set<Id>();
  private transport?: Transport;

  /** The fetch to give the transport. */
  fetch(base: FetchLike): FetchLike {
    return async (url, init) => {
      const ids = init?.method === 'POST' ? requestIds(init.body) : [];
      const response = await base(url, init);
      const sse = response.headers.get('content-type')?.toLowerCase().startsWith('text/event-stream');
      if (ids.length === 0 || !response.ok || !sse || !response.body) return response;
      for (const id of ids) this.open.add(id);
      return new Response(
        watched(response.body, () => this.lost(ids)),
        {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        },
      );
    };
  }

  /** Follows which requests were answered; call after any other onmessage wrapping, before connect. */
  attach(transport: Transport): void {
    this.transport = transport;
    transport.onmessage = (message) => {
      const id = (message as { id?: Id }).id;
      if (id !== undefined && !('method' in message)) this.open.delete(id);
    };
  }

  private lost(ids: Id[]): void {
    // The SDK reads the same stream: let it deliver what arrived before the break first.
    setImmediate(() => {
      for (const id of ids) {
        if (!this.open.delete(id)) continue;
        this.transport?.onmessage?.({
          jsonrpc: '2.0',
          id,
          error: {
            code: STREAM_LOST_CODE,
            message: 'the connection dropped mid-call (its response stream ended before an answer)',
          },
        });
      }
    });
  }
}

/**
 * The same bytes; `onLost` runs when the stream errors or ends (a request's stream ends after its
 * answer) — unless an event carried an id: then the SDK resumes the stream itself (Last-Event-ID).
 */
function watched(body: ReadableStream<Uint8Array>, onLost: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let tail = '\n';
  let resumable = false;
  const lost = () => {
    if (!resumable) onLost();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          lost();
          return;
        }
        if (!resumable) {
          const text = tail + decoder.decode(value, { stream: true });
          resumable = /[\r\n]id:/.test(text);
          tail = text.slice(-3);
        }
        controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        lost();
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

function requestIds(body: unknown): Id[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages.flatMap((m) =>
      typeof m === 'object' && m !== null && 'method' in m && 'id' in m ? [(m as { id: Id }).id] : [],
    );
  } catch {
    return [];
  }
}
