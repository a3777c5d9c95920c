// A server whose tool schema nests 5,000 objects (10,000 JSON levels, past what JSON.stringify can
// write) over real stdio: the session connects, the tool is registered with a schema cut to a bounded
// depth and a note, the cache is written, and the other tools work.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import { MAX_SCHEMA_DEPTH } from '../../src/catalog/schema-depth.ts';
import { CACHE_FILE_NAME } from '../../src/config/defaults.ts';
import { hostileFixture } from '../fixtures/servers/spawn.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
const bridges: PiBridge[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-deep-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  const { command, args } = hostileFixture();
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        deep: { command, args: [...args, '--deep', '5000'], lifecycle: 'eager', toolPrefix: 'none' },
      },
    }),
  );
});

afterEach(async () => {
  for (const bridge of bridges.splice(0)) {
    const runtime = await bridge.runtime();
    await runtime.stop();
    runtime.dispose();
  }
  rmSync(root, { recursive: true, force: true });
});

function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

describe('a tool schema nested 5,000 objects deep', () => {
  it('is cut as it arrives: the session connects, the tool is declared bounded, the cache is written', async () => {
    const pi = new RecordingPi(project);
    const bridge = bridgePi(pi, {
      connector: connectMcp,
      env: { PI_CODING_AGENT_DIR: agentDir },
      homeDir: root,
    });
    bridges.push(bridge);
    await pi.emit('session_start', {});
    const runtime = await bridge.runtime();
    await waitFor(
      runtime.actor,
      (s) => s.context.catalogs.deep?.tools.some((t) => t.name === 'hostile_deep') ?? false,
      {
        timeout: 30_000,
      },
    );
    const search = await pi.callTool('ToolSearch', { query: 'select:hostile_deep,hostile_echo' });
    expect(search.content[0]).toMatchObject({ text: expect.stringMatching(/^Loaded 2 tools/) });
    const deep = pi.tools.get('hostile_deep')!;
    expect(depthOf(deep.parameters)).toBeLessThanOrEqual(MAX_SCHEMA_DEPTH);
    expect(deep.description).toMatch(/too deep to declare whole/);
    const echoed = await pi.callTool('hostile_echo', { text: 'still works' });
    expect(echoed.content[0]).toMatchObject({ text: expect.stringContaining('still works') });
    await runtime.stop();
    const cache = JSON.parse(readFileSync(join(agentDir, CACHE_FILE_NAME), 'utf8'));
    expect(JSON.stringify(cache)).toContain('hostile_deep');
  });
});
