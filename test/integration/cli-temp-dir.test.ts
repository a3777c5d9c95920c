// The CLI's temp folder is removed when the CLI ends: after a command, after a failing one, and when
// it is stopped by a signal mid-call. It stays only when the CLI told the user to open a file in it.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { removeTempRoot } from '../support/hosts.ts';
import { type CliRun, runCliBin } from '../support/output-channels.ts';

let root: string;
let agentDir: string;
let project: string;
/** The CLI's TMPDIR: whatever it leaves behind is here. */
let temp: string;

function cli(args: string[], onSpawn?: Parameters<typeof runCliBin>[4]): Promise<CliRun> {
  return runCliBin(args, { cwd: project, home: root, agentDir }, '', { TMPDIR: temp }, onSpawn);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-cli-temp-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  temp = join(root, 'tmp');
  for (const dir of [agentDir, project, temp]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({ mcpServers: { fx: stdioFixture(['--reliability-tools']) } }),
  );
});

afterEach(() => removeTempRoot(root));

const left = () => readdirSync(temp).filter((n) => n.startsWith('pi-mcp-actors-cli-'));

describe('the CLI temp folder', () => {
  it('is removed after a command and after a failing one', async () => {
    const ok = await cli(['call', 'fx__echo', '{"text":"hi"}']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('hi');
    expect(left()).toEqual([]);
    const failed = await cli(['call', 'fx__echo', '{not json']);
    expect(failed.code).toBe(2);
    const unknown = await cli(['call', 'fx__nope']);
    expect(unknown.code).toBe(1);
    expect(left()).toEqual([]);
  });

  it('is removed when the CLI is stopped by SIGTERM in the middle of a call', async () => {
    const starts = join(root, 'starts');
    writeFileSync(
      join(agentDir, 'mcp.json'),
      JSON.stringify({ mcpServers: { fx: stdioFixture(['--starts-file', starts]) } }),
    );
    const run = await cli(['call', 'fx__hang'], (child) => {
      // Once the folder exists and the server has started (the call follows), stop the CLI as `kill` would.
      const poll = setInterval(() => {
        if (left().length > 0 && existsSync(starts)) {
          clearInterval(poll);
          child.kill('SIGTERM');
        }
      }, 20);
      child.once('exit', () => clearInterval(poll));
    });
    expect(run.code).toBeNull();
    expect(left()).toEqual([]);
  });

  it('stays when the output names a file in it (a spilled output the user was told to open)', async () => {
    const run = await cli(['call', 'fx__big_output', '{"bytes":200000}']);
    expect(run.code, run.stderr).toBe(0);
    const [kept] = left();
    expect(kept).toBeDefined();
    const path = /\/\S*pi-mcp-actors-cli-\S*?\.txt/.exec(run.stdout)?.[0];
    expect(path && existsSync(path)).toBe(true);
  });
});
