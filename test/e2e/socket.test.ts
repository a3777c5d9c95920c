// Our extension in the real Pi with pi-mcp-adapter's rmcp-mux-style config: a server reached only
// through `socket` (an SDK McpServer on a real Unix socket, the stand-in for an rmcp-mux service).
// ToolSearch loads its tool, the call goes over the socket, and the answer reaches the model.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSocketFixture } from '../fixtures/servers/spawn.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, loadedByToolSearch, TOOL_SEARCH, threeRequests, toolResultFor } from './harness/mcp.ts';
import { runPiJson } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

let socketDir: string;
let mux: { pid: number; stop(): Promise<void> };
let world: World | undefined;

beforeAll(async () => {
  await ensurePi();
  socketDir = mkdtempSync(join(tmpdir(), 'pi-e2e-mux-'));
  mux = await startSocketFixture(join(socketDir, 'memory.sock'));
}, ENSURE_PI_TIMEOUT_MS);
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});
afterAll(async () => {
  await mux?.stop();
  if (socketDir) rmSync(socketDir, { recursive: true, force: true });
});

describe('socket servers in the real Pi', () => {
  it('ToolSearch loads a tool of a socket-only server and the call goes over the socket', async () => {
    world = await createWorld({
      mcpJson: { mcpServers: { memory: { socket: join(socketDir, 'memory.sock') } } },
      script: [
        { toolCalls: [{ id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:memory__pid' } }] },
        { toolCalls: [{ id: 'call_pid', name: 'memory__pid', arguments: {} }] },
        { text: 'done' },
      ],
    });
    const run = await runPiJson({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Which pid serves memory?',
    });

    expect(run.code, run.stderr).toBe(0);
    expect(world.llm.errors).toEqual([]);
    const [, second, third] = threeRequests(world.llm);
    expect(loadedByToolSearch(toolResultFor(second, 'call_search')!)).toEqual(['memory__pid']);
    // The answer came from the process behind the socket, which is still running (we never own it).
    expect(toolResultFor(third, 'call_pid')).toBe(String(mux.pid));
    expect(() => process.kill(mux.pid, 0)).not.toThrow();
  });
});
