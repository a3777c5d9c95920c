// The leak a review found: a stdio server with `env.API_TOKEN=sk-live-…` that prints its token on
// stderr and exits. Its stderr reaches the last error, and from there every text that leaves the
// runtime: ToolSearch's note, the executor's error result, /mcp, notifications, the status bar, the
// log, inspector events, the cache and the CLI (text and --json). None may contain the token.

import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/actors/session-actor.ts';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi } from '../../src/adapters/pi/bridge.ts';
import { cachedServerFromCatalog, createCacheStore } from '../../src/catalog/cache.ts';
import { loadConfig } from '../../src/config/load.ts';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { leaks, runCliBin, sessionChannels } from '../support/output-channels.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
const runtimes: Runtime[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-leak-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(async () => {
  for (const runtime of runtimes.splice(0)) {
    await runtime.stop();
    runtime.dispose();
  }
  rmSync(root, { recursive: true, force: true });
});

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('\n');

const cli = (args: string[]) => runCliBin(args, { cwd: project, home: root, agentDir });

describe('a server that prints its token on stderr and exits', () => {
  it('never shows the token: ToolSearch, tool result, /mcp, notifications, status, log, inspector, cache, CLI', async () => {
    const token = `sk-live-${randomBytes(12).toString('hex')}`;
    // Not token-shaped: only the config can tell the redaction that this one is a secret.
    const opaque = randomBytes(12).toString('base64url');
    const server = stdioFixture(['--crash-on-start', '--echo-env', 'API_TOKEN', '--echo-env', 'SERVICE_KEY']);
    writeFileSync(
      join(agentDir, 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          // Tools known from the cache: the model calls one, the executor reports the failure.
          leaky: { ...server, env: { API_TOKEN: token, SERVICE_KEY: opaque } },
          // Tools unknown: ToolSearch waits for it and adds a note about its failure.
          fresh: { ...server, env: { API_TOKEN: token, SERVICE_KEY: opaque } },
        },
      }),
    );
    // Tools known from an earlier run, so the model can call one without a live server.
    const definition = loadConfig({
      agentDir,
      cwd: project,
      homeDir: root,
      env: {},
      projectTrusted: false,
    }).servers.find((d) => d.name === 'leaky');
    await createCacheStore({ file: join(agentDir, 'mcp-cache.json') }).write({
      leaky: cachedServerFromCatalog(definition!, {
        tools: [{ name: 'echo', description: 'Echoes the text back.', inputSchema: { type: 'object' } }],
        resources: [],
      }),
    });
    const inspectFile = join(root, 'inspect.jsonl');

    const pi = new RecordingPi(project, true);
    const bridge = bridgePi(pi, {
      connector: connectMcp,
      env: { PI_CODING_AGENT_DIR: agentDir, PI_MCP_INSPECT: inspectFile },
      homeDir: root,
    });
    await pi.emit('session_start', { reason: 'startup' });
    runtimes.push(await bridge.runtime());

    const search = text(await pi.callTool('ToolSearch', { query: 'echo' }));
    const call = await pi.callTool('leaky__echo', { text: 'hi' });
    const slash = await pi.command('mcp');
    await pi.emit('session_shutdown', {});

    const cliText = await cli(['status']);
    const cliJson = await cli(['status', '--json']);
    const cliCall = await cli(['call', 'leaky__echo', '{"text":"hi"}']);

    // The failure itself reached every channel (so the absence of the token means something).
    expect(search).toMatch(/Note: MCP server "fresh" failed to connect: .*exited with code 3/);
    expect(call.isError).toBe(true);
    expect(text(call)).toMatch(/exited with code 3/);
    expect(slash).toMatch(/exited with code 3/);
    expect(cliJson.stdout).toMatch(/exited with code 3/);
    expect(JSON.parse(cliJson.stdout).servers[0].error).toMatch(/SERVICE_KEY=\*\*\*/);

    const channels: Record<string, string> = {
      ...sessionChannels(pi, agentDir, inspectFile),
      toolSearch: search,
      toolResult: JSON.stringify(call),
      mcp: slash,
      cliText: cliText.stdout + cliText.stderr,
      cliJson: cliJson.stdout + cliJson.stderr,
      cliCall: cliCall.stdout + cliCall.stderr,
    };
    expect(channels.inspector!.length).toBeGreaterThan(0);
    expect(leaks(channels, [token, opaque])).toEqual([]);
  }, 60_000);
});
