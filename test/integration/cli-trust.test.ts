// Project trust in the CLI: no command starts a server from the project's `.pi/mcp.json` or
// `.mcp.json` unless the user allowed it (`allow`, remembered per project and keyed by what the entry
// runs) or passed --trust-project (each start of the server appends to a file, so "never started" is
// checked directly).

import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { removeTempRoot } from '../support/hosts.ts';
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
afterEach(() => removeTempRoot(root));

const cli = (args: string[]) => runCliBin(args, { cwd: project, home: root, agentDir });
const started = () => (existsSync(starts) ? readFileSync(starts, 'utf8').trim().split('\n') : []);

describe('CLI project trust', () => {
  it('without consent no command starts a project server, and each says how to allow it', async () => {
    const runs = await Promise.all([
      cli(['status']),
      cli(['tools']),
      cli(['search', 'echo']),
      cli(['call', 'local__echo', '{"text":"hi"}']),
    ]);
    for (const run of runs) {
      expect(run.stderr).toMatch(
        /skipped local: defined by a project file and not allowed.*pi-mcp-actors allow local --cwd/,
      );
      expect(run.stderr).toMatch(/skipped claude: defined by a project file and not allowed/);
    }
    const call = runs[3]!;
    expect(call.code).toBe(1);
    expect(call.stdout).toMatch(/No MCP server provides a tool named local__echo\./);
    expect(started().every((label) => label === 'mine')).toBe(true);
    expect(started().length).toBeGreaterThan(0);
  });

  it('allow lists what waits, remembers the servers named, and asks again when an entry changes', async () => {
    const list = await cli(['allow']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^claude {2}\(.*\.mcp\.json\)\n {2}runs: sh -c /m);
    expect(list.stdout).toMatch(/^local {2}/m);
    expect(started()).toEqual([]);

    const allow = await cli(['allow', 'local']);
    expect(allow.stdout).toMatch(/^allowed local for /m);
    expect((await cli(['allow', 'nope'])).code).toBe(1);
    const status = await cli(['status']);
    expect(status.stdout).toMatch(/^local: connected/m);
    expect(status.stderr).toMatch(/skipped claude: defined by a project file and not allowed/);
    expect(started().sort()).toEqual(['local', 'mine']);

    writeFileSync(
      join(project, '.pi', 'mcp.json'),
      JSON.stringify({ mcpServers: { local: counted('changed') } }),
    );
    const again = await cli(['status']);
    expect(again.stderr).toMatch(/skipped local: defined by a project file and not allowed/);
    expect(started()).not.toContain('changed');

    await cli(['allow', '--all']);
    await cli(['status']);
    expect(
      started()
        .filter((label) => label !== 'mine')
        .sort(),
    ).toEqual(['changed', 'claude', 'local']);
  });

  it('allow shows what a project wrote without terminal controls', async () => {
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({
        mcpServers: { 'evil\u001b]52;c;Y3VybA==\u0007': { command: 'x\u001b[2J', args: ['a\nb'] } },
      }),
    );
    const list = await cli(['allow']);
    expect(list.stdout).toContain('evil  (');
    expect(list.stdout.includes('\u001b') || list.stdout.includes('\u0007')).toBe(false);
  });

  it('with --trust-project they start', async () => {
    const status = await cli(['status', '--trust-project']);
    expect(status.stdout).toMatch(/^local: connected/m);
    expect(status.stdout).toMatch(/^claude: connected/m);
    expect(status.code).toBe(0);
    expect(started().sort()).toEqual(['claude', 'local', 'mine']);
  });

  it("a user server launched through npx never runs the project's node_modules", async () => {
    const mark = join(root, 'project-code-ran');
    mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'p', dependencies: { 'evil-mcp': '1.0.0' } }),
    );
    writeFileSync(join(project, 'node_modules', '.bin', 'evil-mcp'), `#!/bin/sh\necho ran > '${mark}'\n`, {
      mode: 0o755,
    });
    // A registry of the project's choosing would be read from its .npmrc too.
    writeFileSync(join(project, '.npmrc'), 'registry=http://127.0.0.1:9/\n');
    writeFileSync(
      join(agentDir, 'mcp.json'),
      JSON.stringify({
        mcpServers: { tool: { command: 'npx', args: ['--offline', 'evil-mcp'], startupTimeoutMs: 20_000 } },
      }),
    );
    for (const args of [['status'], ['status', '--trust-project']]) {
      const run = await cli(args);
      expect(run.stdout + run.stderr).toMatch(/tool: /);
      expect(existsSync(mark)).toBe(false);
    }
  });
});
