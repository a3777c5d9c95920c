// Project trust in the CLI: no command starts a server from the project's `.pi/mcp.json` or
// `.mcp.json` without --trust-project (each start of the server appends to a file, so "never
// started" is checked directly); with it, they start.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { runCliBin } from '../support/output-channels.ts';

let root: string;
let agentDir: string;
let project: string;
let starts: string;

function counted(label: string) {
  const { command, args } = stdioFixture();
  const quoted = [command, ...args].map((a) => `'${a}'`).join(' ');
  return { command: 'sh', args: ['-c', `echo ${label} >> '${starts}'; exec ${quoted}`] };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-cli-trust-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  starts = join(root, 'starts.log');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(join(project, '.pi'), { recursive: true });
  writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify({ mcpServers: { mine: counted('mine') } }));
  writeFileSync(
    join(project, '.pi', 'mcp.json'),
    JSON.stringify({ mcpServers: { local: counted('local') } }),
  );
  writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { claude: counted('claude') } }));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const cli = (args: string[]) => runCliBin(args, { cwd: project, home: root, agentDir });
const started = () => (existsSync(starts) ? readFileSync(starts, 'utf8').trim().split('\n') : []);

describe('CLI project trust', () => {
  it('without --trust-project no command starts a project server, and each says how to trust', async () => {
    const runs = await Promise.all([
      cli(['status']),
      cli(['tools']),
      cli(['search', 'echo']),
      cli(['call', 'local__echo', '{"text":"hi"}']),
    ]);
    for (const run of runs) {
      expect(run.stderr).toMatch(/skipped local: the project is not trusted.*--approve/);
      expect(run.stderr).toMatch(/skipped claude: the project is not trusted/);
    }
    const call = runs[3]!;
    expect(call.code).toBe(1);
    expect(call.stdout).toMatch(/No MCP server provides a tool named local__echo\./);
    expect(started().every((label) => label === 'mine')).toBe(true);
    expect(started().length).toBeGreaterThan(0);
  });

  it('with --trust-project they start', async () => {
    const status = await cli(['status', '--trust-project']);
    expect(status.stdout).toMatch(/^local: connected/m);
    expect(status.stdout).toMatch(/^claude: connected/m);
    expect(status.code).toBe(0);
    expect(started().sort()).toEqual(['claude', 'local', 'mine']);
  });
});
