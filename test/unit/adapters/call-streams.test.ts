// CallStreams in isolation: which requests a lost POST stream fails, through the transport's onmessage.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import { CallStreams, STREAM_LOST_CODE } from '../../../src/adapters/mcp/call-streams.ts';

const encoder = new TextEncoder();

/** A POST answer whose SSE body sends `chunks`, then ends (or breaks, with `error`). */
function sseAnswer(chunks: string[], error?: Error): Response {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
      else if (error) controller.error(error);
      else controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

async function run(chunks: string[], error?: Error) {
  const streams = new CallStreams();
  const received: unknown[] = [];
  const transport = { onmessage: undefined } as unknown as Transport;
  streams.attach(transport);
  const ours = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    ours(message, extra);
    received.push(message);
  };
  const fetch = streams.fetch(async () => sseAnswer(chunks, error));
  const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } });
  const response = await fetch('http://127.0.0.1/mcp', { method: 'POST', body });
  const reader = response.body!.getReader();
  const answered = chunks.some((c) => c.includes('"result"'));
  for (;;) {
    const read = await reader.read().catch(() => ({ done: true as const }));
    if (read.done) break;
  }
  // The SDK would parse the answer and deliver it; here the test does.
  if (answered) transport.onmessage?.({ jsonrpc: '2.0', id: 7, result: {} });
  await new Promise((resolve) => setImmediate(resolve));
  return received;
}

describe('CallStreams', () => {
  it('a stream that breaks before the answer fails its request with STREAM_LOST_CODE', async () => {
    const received = await run([': accepted\n\n'], new TypeError('terminated'));
    expect(received).toEqual([
      { jsonrpc: '2.0', id: 7, error: expect.objectContaining({ code: STREAM_LOST_CODE }) },
    ]);
  });

  it('a stream that ends after the answer fails nothing', async () => {
    const received = await run(['event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\n\n']);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 7, result: {} }]);
  });

  it('a stream with event ids is left to the SDK, which resumes it', async () => {
    const received = await run(['id: ev-1\ndata: \n\n', ': more'], new TypeError('terminated'));
    expect(received).toEqual([]);
  });
});
