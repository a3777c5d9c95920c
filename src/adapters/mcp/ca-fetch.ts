// fetch for an HTTPS server behind a private CA (pi-mcp-adapter's `caFile`): requests to the server's
// origin go over node:https trusting only that CA (it replaces the default roots, hostname and expiry
// checks stay on); every other origin keeps Node's fetch and default trust. Node's own fetch cannot
// take a CA without the undici package, which the bundle does not ship. Bodies stream (SSE).

import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { FetchLike } from '@modelcontextprotocol/client';

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

export function caFetch(ca: string, origin: string, fallback: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) return fallback(input, init);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    for (const [name, value] of new Headers(init?.headers)) headers.set(name, value);
    let body: Buffer | undefined;
    if (init?.body != null) {
      // A Response reads every body type fetch accepts, and knows its content type (URLSearchParams).
      const reader = new Response(init.body);
      const type = reader.headers.get('content-type');
      if (type !== null && !headers.has('content-type')) headers.set('content-type', type);
      body = Buffer.from(await reader.arrayBuffer());
      headers.set('content-length', String(body.length));
    }
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    // Through require at first use: loading the MCP adapter must not load node:https (its HTTP parser
    // cannot be in the host's startup snapshot, src/host/snapshot-main.ts).
    const { request: httpsRequest } = createRequire(import.meta.url)(
      'node:https',
    ) as typeof import('node:https');
    return new Promise<Response>((resolve, reject) => {
      const req = httpsRequest(url, { method, headers: Object.fromEntries(headers), ca }, (res) => {
        const responseHeaders = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        }
        const status = res.statusCode ?? 500;
        const empty = NULL_BODY_STATUS.has(status) || method === 'HEAD';
        if (empty) res.resume();
        const stream = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(
          new Response(stream, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }),
        );
      });
      const onAbort = () => req.destroy(signal?.reason ?? new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('close', () => signal?.removeEventListener('abort', onAbort));
      req.on('error', reject);
      req.end(body);
    });
  };
}
