// The loopback callback of a sign-in: an HTTP server on 127.0.0.1 that waits for the authorization
// server's redirect (RFC 8252 §7.3) and hands over the full redirect URL. It answers one callback
// and is closed by its owner when the sign-in ends, whichever way.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackCallback {
  /** `http://127.0.0.1:<port><path>`. */
  readonly redirectUrl: string;
  /** Resolves with the redirect URL the browser brought (query included). */
  readonly received: Promise<URL>;
  close(): Promise<void>;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif"><h1>${title}</h1><p>${text}</p></body>`;

export async function listenForCallback(options: {
  port?: number;
  path?: string;
}): Promise<LoopbackCallback> {
  const path = options.path ?? '/callback';
  let deliver: (url: URL) => void = () => {};
  const received = new Promise<URL>((resolve) => {
    deliver = resolve;
  });
  let done = false;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== path || done) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    done = true;
    const failed = url.searchParams.has('error');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        failed
          ? PAGE('Sign-in failed', 'The authorization server refused the sign-in. Go back to your terminal.')
          : PAGE('Signed in', 'pi-mcp-actors received the sign-in. You can close this page.'),
      );
    deliver(new URL(`${redirectBase()}${url.pathname}${url.search}`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  const redirectBase = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const redirectUrl = `${redirectBase()}${path}`;
  return {
    redirectUrl,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
