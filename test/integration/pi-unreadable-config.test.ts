// A Pi session whose mcp.json cannot be read (issue 36): the status line and /mcp say so, with the file
// and the line, and never advise adding servers.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { bridgePi, type PiBridge } from '../../src/adapters/pi/bridge.ts';
import { RecordingPi } from '../support/recording-pi.ts';

let root: string;
let agentDir: string;
let project: string;
let bridge: PiBridge | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-unreadable-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(async () => {
  if (bridge) {
    const runtime = await bridge.runtime();
    await runtime.stop();
    runtime.dispose();
    bridge = undefined;
  }
  rmSync(root, { recursive: true, force: true });
});

describe('an unreadable mcp.json in Pi', () => {
  it('the status line and /mcp name the file and line, never "No MCP servers configured"', async () => {
    const file = join(agentDir, 'mcp.json');
    writeFileSync(file, '{\n  "mcpServers": {\n    "a": { "command": "x" oops }\n  }\n}\n');
    const pi = new RecordingPi(project);
    bridge = bridgePi(pi, { connector: connectMcp, env: { PI_CODING_AGENT_DIR: agentDir }, homeDir: root });
    await pi.emit('session_start', { reason: 'startup' });
    await bridge.runtime();
    const said = await pi.command('mcp', 'status');
    expect(said).toContain(file);
    expect(said).toMatch(/could not be read/);
    expect(said).toMatch(/line 3/);
    expect(said).not.toMatch(/No MCP servers configured/);
    expect(pi.status).toBe('MCP · mcp.json unreadable (line 3)');
  });
});
