// The loopback callback of a sign-in: an HTTP server on 127.0.0.1 that waits for the authorization
// server's redirect (RFC 8252 §7.3) and hands over the full redirect URL. A request that does not
// carry this sign-in's `state` gets an error page and the wait goes on (a stale tab, or a page that
// tries to push its own code in); the one that does is held open until the sign-in knows how it
// ended, so the browser never reads "Signed in" for a sign-in that was refused. Closed by its owner
// when the sign-in ends, whichever way.

import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether a URL is plain http to this machine (what RFC 8252 §7.3 calls a loopback redirect). */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

export interface CallbackRequest {
  /** The redirect URL the browser brought (query included). */
  url: URL;
  /** Answers the browser with how the sign-in ended. */
  answer(ok: boolean, text: string): void;
}

export interface LoopbackCallback {
  /** `http://127.0.0.1:<port><path>`. */
  readonly redirectUrl: string;
  /** Resolves with the first request that carries the expected `state`. */
  readonly received: Promise<CallbackRequest>;
  close(): Promise<void>;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function page(res: ServerResponse, status: number, title: string, text: string): void {
  if (res.writableEnded) return;
  res
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .end(
      `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif"><h1>${title}</h1><p>${escapeHtml(text)}</p></body>`,
    );
}

export async function listenForCallback(options: {
  port?: number;
  /** A port to try first when none is configured (the one the registered client last used). */
  preferredPort?: number;
  path?: string;
  /** The `state` of the authorization request (known once the sign-in has built it). */
  expectedState(): string | undefined;
}): Promise<LoopbackCallback> {
  const path = options.path ?? '/callback';
  let deliver: (request: CallbackRequest) => void = () => {};
  const received = new Promise<CallbackRequest>((resolve) => {
    deliver = resolve;
  });
  let held: ServerResponse | undefined;
  // Through require, not an import: an ES import of node:http reads every export, and three of them load
  // Node's fetch (undici), 20–25 ms on the thread of whoever loads the MCP adapter (the shared host).
  const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const expected = options.expectedState();
    if (held || expected === undefined || url.searchParams.get('state') !== expected) {
      page(
        res,
        400,
        'Not this sign-in',
        held
          ? 'This sign-in has already received its answer. Go back to your terminal.'
          : 'This page does not belong to the sign-in in progress (its state does not match), so it was ignored. Finish the sign-in from the link your terminal shows.',
      );
      return;
    }
    held = res;
    deliver({
      url: new URL(`${redirectBase()}${url.pathname}${url.search}`),
      answer: (ok, text) => page(res, ok ? 200 : 400, ok ? 'Signed in' : 'Sign-in failed', text),
    });
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  if (options.port === undefined && options.preferredPort !== undefined) {
    await listen(options.preferredPort).catch(() => listen(0));
  } else {
    await listen(options.port ?? 0);
  }
  server.unref();
  const redirectBase = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const redirectUrl = `${redirectBase()}${path}`;
  return {
    redirectUrl,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        if (held) page(held, 400, 'Sign-in failed', 'The sign-in ended. Go back to your terminal.');
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
