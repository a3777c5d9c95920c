// The local visual inspector: a tiny HTTP + WebSocket server on 127.0.0.1. A Pi session sends its
// (already redacted) inspection events to /ws; browsers get them on /events and draw each server's
// statechart from docs/statecharts/*.svg (drawn from the Mermaid charts at build time). Works offline.
// Every request needs the random token; a wrong or missing one gets 403.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { type WebSocket, WebSocketServer } from 'ws';
import { packageFile } from '../package-files.ts';
import { type InspectionMessage, RelayHistory } from './relay-history.ts';

export interface InspectorServerOptions {
  host?: '127.0.0.1';
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Folder of the drawn statecharts: `<machine id>.svg`. */
  statechartsDir: string;
  /** Defaults to 32 random bytes. */
  token?: string;
}

export interface InspectorServer {
  /** Open this in a browser: `http://127.0.0.1:PORT/?token=…`. */
  url: string;
  /** Where a Pi session sends its inspection events: `ws://127.0.0.1:PORT/ws?token=…`. */
  wsUrl: string;
  /** Where viewers receive them (the page, or a relay to another inspector): `ws://…/events?token=…`. */
  eventsUrl: string;
  close(): Promise<void>;
}

const PAGE_FILE = packageFile('src', 'inspect', 'page', 'index.html');
/** The generated charts shipped with the package (`docs/statecharts`). */
export const STATECHARTS_DIR = packageFile('docs', 'statecharts');
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export async function startInspectorServer(options: InspectorServerOptions): Promise<InspectorServer> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new Error('The inspector only listens on 127.0.0.1.');
  const token = options.token ?? randomBytes(32).toString('base64url');
  if (token.length < 16) throw new Error('The inspector token must be at least 16 characters.');
  const page = readFileSync(PAGE_FILE, 'utf8');
  const scriptHashes = inlineScriptHashes(page);
  const history = new RelayHistory();

  let port = 0;
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const authorised = (request: IncomingMessage): URL | undefined => {
    const url = new URL(request.url ?? '/', `http://${host}`);
    if (!allowedHosts().has((request.headers.host ?? '').toLowerCase())) return undefined;
    return sameToken(url.searchParams.get('token'), token) ? url : undefined;
  };

  const server = createServer((request, response) => {
    void handleHttp(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('Internal error');
    });
  });

  const handleHttp = async (request: IncomingMessage, response: ServerResponse) => {
    const url = authorised(request);
    if (!url) return forbidden(response);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' });
      return void response.end();
    }
    const headers = baseHeaders();
    switch (url.pathname) {
      case '/':
      case '/index.html':
        response.writeHead(200, {
          ...headers,
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': contentSecurityPolicy(scriptHashes, port),
        });
        return void response.end(request.method === 'HEAD' ? undefined : page);
      case '/statecharts.json': {
        const charts = await readCharts(options.statechartsDir);
        response.writeHead(200, { ...headers, 'content-type': 'application/json; charset=utf-8' });
        return void response.end(request.method === 'HEAD' ? undefined : JSON.stringify(charts));
      }
      default:
        response.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
        return void response.end('Not found');
    }
  };

  const sessions = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const browsers = new WebSocketServer({ noServer: true, maxPayload: 1024 });

  const toBrowsers = (text: string) => {
    for (const client of browsers.clients) if (client.readyState === client.OPEN) client.send(text);
  };
  const announceSessions = () =>
    toBrowsers(JSON.stringify({ type: '@inspector.sessions', count: sessions.clients.size }));

  sessions.on('connection', (socket: WebSocket) => {
    announceSessions();
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      const message = parseInspectionMessage(text);
      if (!message) return;
      history.record(message, text);
      toBrowsers(text);
    });
    socket.on('close', announceSessions);
    socket.on('error', () => socket.terminate());
  });

  browsers.on('connection', (socket: WebSocket) => {
    socket.send(JSON.stringify({ type: '@inspector.sessions', count: sessions.clients.size }));
    for (const text of history.replay()) socket.send(text);
    socket.send(JSON.stringify({ type: '@inspector.replayed' }));
    // Browsers only listen; anything they send is ignored.
    socket.on('error', () => socket.terminate());
  });

  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = authorised(request);
    if (!url) return rejectUpgrade(socket, 403, 'Forbidden');
    const target = url.pathname === '/ws' ? sessions : url.pathname === '/events' ? browsers : undefined;
    if (!target) return rejectUpgrade(socket, 404, 'Not Found');
    target.handleUpgrade(request, socket, head, (ws) => target.emit('connection', ws, request));
  });

  const openSockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    openSockets.add(socket);
    socket.on('close', () => openSockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const query = `token=${encodeURIComponent(token)}`;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}/?${query}`,
    wsUrl: `ws://${host}:${port}/ws?${query}`,
    eventsUrl: `ws://${host}:${port}/events?${query}`,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        for (const client of [...sessions.clients, ...browsers.clients]) client.terminate();
        sessions.close();
        browsers.close();
        server.close(() => resolve());
        for (const socket of openSockets) socket.destroy();
      });
      return closing;
    },
  };
}

function sameToken(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function forbidden(response: ServerResponse): void {
  response.writeHead(403, { ...baseHeaders(), 'content-type': 'text/plain; charset=utf-8' });
  response.end(
    'Forbidden: open the inspector with the URL (and token) printed by `pi-mcp-actors inspect`.\n',
  );
}

function rejectUpgrade(socket: Socket, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function baseHeaders(): Record<string, string> {
  return {
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cross-origin-resource-policy': 'same-origin',
  };
}

function contentSecurityPolicy(scriptHashes: string[], port: number): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${scriptHashes.map((hash) => `'${hash}'`).join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** CSP hashes of the page's inline scripts, so no other inline script can run. */
function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
    hashes.push(
      `sha256-${createHash('sha256')
        .update(match[1] ?? '')
        .digest('base64')}`,
    );
  }
  return hashes;
}

async function readCharts(dir: string): Promise<Record<string, string>> {
  const charts: Record<string, string> = {};
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return charts;
  }
  for (const name of names.sort()) {
    if (!name.endsWith('.svg')) continue;
    try {
      charts[name.slice(0, -'.svg'.length)] = await readFile(join(dir, name), 'utf8');
    } catch {
      // A chart that cannot be read is left out; the page says it has none.
    }
  }
  return charts;
}

function parseInspectionMessage(text: string): InspectionMessage | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const type = (value as { type?: unknown }).type;
    return typeof type === 'string' && type.startsWith('@xstate.') ? (value as InspectionMessage) : undefined;
  } catch {
    return undefined;
  }
}
