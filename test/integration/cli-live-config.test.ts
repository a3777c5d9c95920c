// The CLI reads the config afresh on every run (issue 37): an edit between two runs is in the second.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { removeTempRoot } from '../support/hosts.ts';
import { runCliBin } from '../support/output-channels.ts';

let root: string;
let agentDir: string;
let project: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-cli-live-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});
afterEach(() => removeTempRoot(root));

it('each CLI run reads the config as it is then: a server added between runs is there, a removed one is not', async () => {
  const cli = (args: string[]) => runCliBin(args, { cwd: project, home: root, agentDir });
  const save = (servers: Record<string, unknown>) =>
    writeFileSync(
      join(agentDir, 'mcp.json'),
      JSON.stringify({ settings: { sharedHost: false }, mcpServers: servers }),
    );
  save({ alpha: stdioFixture() });
  expect((await cli(['tools', 'beta'])).code).not.toBe(0);
  save({ beta: stdioFixture() });
  const added = await cli(['tools', 'beta']);
  expect(added.code, added.stderr).toBe(0);
  expect(added.stdout).toContain('echo');
  expect((await cli(['tools', 'alpha'])).code).not.toBe(0);
}, 60_000);
