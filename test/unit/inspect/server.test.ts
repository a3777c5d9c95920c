import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { type InspectorServer, startInspectorServer } from '../../../src/inspect/server.ts';

const SVG = '<svg id="pimcpchart0"><g id="pimcpchart0-state-init-0"></g></svg>';
let dir: string;
let server: InspectorServer;
const sockets: WebSocket[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inspector-server-'));
  writeFileSync(join(dir, 'server.svg'), SVG);
  writeFileSync(join(dir, 'server.mmd'), 'stateDiagram-v2\n  [*] --> init\n');
  writeFileSync(join(dir, 'notes.txt'), 'not a chart');
  server = await startInspectorServer({ statechartsDir: dir });
});

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const base = () => new URL(server.url);
const withPath = (path: string, token?: string | null) => {
  const url = new URL(path, base());
  if (token !== null) url.searchParams.set('token', token ?? base().searchParams.get('token')!);
  return url.toString();
};

function open(url: string): Promise<{ socket: WebSocket; messages: any[] }> {
  const socket = new WebSocket(url);
  sockets.push(socket);
  const messages: any[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, messages }));
    socket.once('error', reject);
  });
}

function upgradeStatus(url: string): Promise<number> {
  const socket = new WebSocket(url);
  sockets.push(socket);
  return new Promise((resolve) => {
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.once('open', () => resolve(101));
    socket.once('error', () => undefined);
  });
}

const wsPath = (path: string, token?: string | null) => withPath(path, token).replace(/^http/, 'ws');

describe('startInspectorServer', () => {
  it('listens on 127.0.0.1 with a random token in both URLs', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{40,}$/);
    expect(server.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws\?token=[\w-]{40,}$/);
    expect(server.eventsUrl).toBe(server.wsUrl.replace('/ws?', '/events?'));
    const other = await startInspectorServer({ statechartsDir: dir });
    try {
      expect(new URL(other.url).searchParams.get('token')).not.toBe(base().searchParams.get('token'));
    } finally {
      await other.close();
    }
  });

  it.each(['/', '/statecharts.json', '/nope'])('answers 403 to %s without the right token', async (path) => {
    expect((await fetch(withPath(path, null))).status).toBe(403);
    expect((await fetch(withPath(path, 'wrong-token-wrong-token'))).status).toBe(403);
  });

  it('answers 403 to WebSocket upgrades without the right token', async () => {
    for (const path of ['/ws', '/events']) {
      expect(await upgradeStatus(wsPath(path, null))).toBe(403);
      expect(await upgradeStatus(wsPath(path, 'wrong-token-wrong-token'))).toBe(403);
    }
    expect(await upgradeStatus(wsPath('/events'))).toBe(101);
  });

  it('answers 403 when the Host header is not this loopback address (DNS rebinding)', async () => {
    const url = new URL(withPath('/'));
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: url.port,
          path: `${url.pathname}${url.search}`,
          headers: { host: `evil.example:${url.port}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('serves the page with a strict CSP and the drawn charts (no Mermaid at run time)', async () => {
    const page = await fetch(withPath('/'));
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("default-src 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await page.text()).toContain('<title>pi-mcp-actors inspector</title>');

    expect((await fetch(withPath('/mermaid.min.js'))).status).toBe(404);

    const charts = await fetch(withPath('/statecharts.json'));
    expect(await charts.json()).toEqual({ server: SVG });
    expect((await fetch(withPath('/missing'))).status).toBe(404);
  });

  it('relays inspection events from a session to browsers, and replays them to late browsers', async () => {
    const early = await open(wsPath('/events'));
    const session = await open(server.wsUrl);
    const actor = {
      type: '@xstate.actor',
      sessionId: 'x:0',
      name: 'server',
      systemId: 'server:a',
      snapshot: { status: 'active', value: 'init' },
    };
    const snapshot = {
      type: '@xstate.snapshot',
      sessionId: 'x:0',
      snapshot: { status: 'active', value: 'connecting' },
      event: { type: 'CONNECT' },
    };
    session.socket.send(JSON.stringify(actor));
    session.socket.send('not json');
    session.socket.send(JSON.stringify({ type: 'something-else' }));
    session.socket.send(JSON.stringify(snapshot));

    const relayed = (messages: any[]) =>
      messages.filter((m) => typeof m.type === 'string' && m.type.startsWith('@xstate.'));
    await vi.waitFor(() => expect(relayed(early.messages)).toEqual([actor, snapshot]));
    expect(early.messages).toContainEqual({ type: '@inspector.sessions', count: 1 });

    early.socket.send(
      JSON.stringify({ type: '@xstate.snapshot', sessionId: 'x:0', snapshot: { value: 'forged' } }),
    );
    const late = await open(wsPath('/events'));
    await vi.waitFor(() => expect(late.messages.at(-1)).toEqual({ type: '@inspector.replayed' }));
    expect(relayed(late.messages)).toEqual([actor, snapshot]);
  });

  it('close() ends open sockets and frees the port', async () => {
    const browser = await open(wsPath('/events'));
    const closed = new Promise<void>((resolve) => browser.socket.once('close', () => resolve()));
    await server.close();
    await closed;
    await expect(fetch(withPath('/'))).rejects.toThrow();
  });
});
