// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} references.
// The `socket` transport (pi-mcp-adapter's rmcp-mux socket) against a real MCP server (the SDK's
// McpServer) on a real Unix domain socket in a temp dir: connect, list, call, the server going away,
// and a restarted server reached again (the server actor's part: ../server-actor/socket.test.ts).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { loadConfig } from '../../../src/config/load.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import { ConnectError } from '../../../src/ports/mcp.ts';
import { serverDefinition } from '../../fixtures/servers/definitions.ts';
import { startSocketFixture } from '../../fixtures/servers/spawn.ts';
import { recordEvents, rejectionOf, textOf, useAdapterHarness } from './harness.ts';

const harness = useAdapterHarness();
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function socketPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-sock-'));
  dirs.push(dir);
  return join(dir, 'memory.sock');
}

function socketDefinition(socket: string, overrides: Partial<ServerDefinition> = {}): ServerDefinition {
  return serverDefinition({ name: 'memory', transport: 'socket', socket, ...overrides });
}

async function startServer(path: string) {
  const server = await startSocketFixture(path);
  harness.defer(() => server.stop());
  return server;
}

describe('socket transport', () => {
  test('connects over the socket, lists tools and calls one', async () => {
    const path = socketPath();
    const server = await startServer(path);
    const connection = await harness.connect(socketDefinition(path));
    expect(connection.catalog.transport).toBe('socket');
    expect(connection.catalog.serverInfo?.name).toBe('fixture-socket');
    expect(connection.catalog.tools.map((tool) => tool.name)).toEqual(['echo', 'pid']);
    expect(connection.pid).toBeUndefined();
    expect(textOf(await connection.callTool('echo', { text: 'over the socket' }))).toBe('over the socket');
    expect(textOf(await connection.callTool('pid', {}))).toBe(String(server.pid));
  });

  test('no socket at the path: a clear connect error naming the path', async () => {
    const path = socketPath();
    const error = await rejectionOf(harness.connect(socketDefinition(path)));
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.kind).toBe('network');
    expect(error.message).toBe(
      `Cannot connect to "memory": no socket ${path} (start the server or rmcp-mux service that listens there)`,
    );
  });

  test('the server going away closes the connection (naming the socket); a restarted one is reached again', async () => {
    const path = socketPath();
    const first = await startServer(path);
    const connection = await harness.connect(socketDefinition(path));
    const events = recordEvents(connection);
    await first.stop();
    await vi.waitFor(() =>
      expect(events).toContainEqual({ type: 'closed', error: `the socket ${path} closed` }),
    );
    const failed = await rejectionOf(connection.callTool('echo', { text: 'x' }));
    expect(failed.kind).toBe('closed');

    // The stale socket file stays behind a killed server: nothing listens there.
    const refused = await rejectionOf(harness.connect(socketDefinition(path)));
    expect(refused.message).toContain(`nothing listens on socket ${path}`);

    const second = await startServer(path);
    const again = await harness.connect(socketDefinition(path));
    expect(textOf(await again.callTool('pid', {}))).toBe(String(second.pid));
  });
});

describe('socket in the config', () => {
  const load = (entry: Record<string, unknown>) =>
    loadConfig({
      agentDir: '/home/u/.pi/agent',
      cwd: '/work/app',
      homeDir: '/home/u',
      env: { MUX: '/run/mux' },
      projectTrusted: false,
      readFile: (file) =>
        file === '/home/u/.pi/agent/mcp.json' ? JSON.stringify({ mcpServers: { memory: entry } }) : undefined,
    });

  test('a socket-only entry is a socket server: `~` and variables expanded, relative to the project', () => {
    expect(load({ socket: '~/.rmcp-servers/rmcp-mux/sockets/memory.sock' }).servers[0]).toMatchObject({
      transport: 'socket',
      socket: '/home/u/.rmcp-servers/rmcp-mux/sockets/memory.sock',
    });
    expect(load({ socket: '${MUX}/memory.sock' }).servers[0]?.socket).toBe('/run/mux/memory.sock');
    expect(load({ socket: 'run/memory.sock' }).servers[0]?.socket).toBe('/work/app/run/memory.sock');
    expect(load({ socket: '/s.sock' }).diagnostics).toEqual([]);
  });

  test('socket beside command or url is an error at the entry, as in pi-mcp-adapter; other keys are noted', () => {
    const both = load({ socket: '/s.sock', command: 'node' });
    expect(both.servers).toEqual([]);
    expect(both.diagnostics).toContainEqual(
      expect.objectContaining({
        level: 'error',
        path: 'mcpServers.memory',
        message: 'Server "memory": both "socket" and "command" are set; a server uses one transport.',
      }),
    );
    const withHeaders = load({ socket: '/s.sock', headers: { A: 'b' } });
    expect(withHeaders.servers).toHaveLength(1);
    expect(withHeaders.diagnostics).toContainEqual(
      expect.objectContaining({ level: 'warning', path: 'mcpServers.memory.headers' }),
    );
  });
});
