// An HTTP proxy on 127.0.0.1 in front of an MCP server that cuts chosen responses mid-way: the
// response head goes out, then the connection is destroyed (a stream cut, as a flaky network or a
// restarting load balancer does it). It can also stop listening for a while (connections refused)
// and come back on the same port. Everything else passes through, streams included.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

export interface CuttingProxy {
  url: string;
  /** The JSON-RPC methods of the POSTs that went through (cut ones included), in order. */
  methods(): string[];
  /** Stops listening and drops every open connection: connections are refused until `resume`. */
  pause(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** `cut(method, n)`: whether to cut the response to the n-th (1-based) POST of that JSON-RPC method. */
export async function startCuttingProxy(
  target: string,
  cut: (method: string, n: number) => boolean,
): Promise<CuttingProxy> {
  const methods: string[] = [];
  const counts = new Map<string, number>();
  const server = createServer((req, res) => void forward(req, res));

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let method: string | undefined;
    if (req.method === 'POST') {
      try {
        method = String(JSON.parse(body.toString('utf8')).method ?? 'response');
      } catch {
        method = 'unparsable';
      }
      methods.push(method);
      counts.set(method, (counts.get(method) ?? 0) + 1);
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (HOP_HEADERS.has(key) || value === undefined) continue;
      for (const each of Array.isArray(value) ? value : [value]) headers.append(key, each);
    }
    let upstream: Response;
    try {
      upstream = await fetch(new URL(req.url ?? '/', target), {
        method: req.method ?? 'GET',
        headers,
        signal: abort.signal,
        ...(body.length > 0 ? { body } : {}),
      });
    } catch {
      res.destroy();
      return;
    }
    const outHeaders: Record<string, string> = {};
    upstream.headers.forEach((value, key) => {
      if (!HOP_HEADERS.has(key) && key !== 'content-encoding') outHeaders[key] = value;
    });
    res.writeHead(upstream.status, outHeaders);
    if (method !== undefined && cut(method, counts.get(method)!)) {
      res.flushHeaders();
      await upstream.body?.cancel().catch(() => {});
      res.socket?.destroy();
      return;
    }
    if (!upstream.body) {
      res.end();
      return;
    }
    Readable.fromWeb(upstream.body as never)
      .on('error', () => res.destroy())
      .pipe(res);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const path = new URL(target).pathname;
  const close = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    url: `http://127.0.0.1:${port}${path}`,
    methods: () => [...methods],
    pause: close,
    resume: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    stop: close,
  };
}
