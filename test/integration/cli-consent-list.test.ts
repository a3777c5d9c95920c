// `pi-mcp-actors allow`'s list shows everything Allow would do (issue 34 finding 3, bar (f)): a URL
// server's `!command` header and its requestHeadersCommand verbatim, the ${GITHUB_TOKEN} it would send
// and where (by name, never the value), its OAuth settings, and a sign-in of the user's it would use;
// listing runs none of those commands. And a not-allowed project entry with the name of the user's
// server leaves the user's server answering a real call, said so (finding 8; issue 36 bar (f)).
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} references.

import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTokenStore } from '../../src/auth/token-store.ts';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { removeTempRoot } from '../support/hosts.ts';
import { runCliBin } from '../support/output-channels.ts';

let root: string;
let agentDir: string;
let project: string;
const GITHUB_TOKEN = 'ghp_consentListValue8361';
const URL = 'http://127.0.0.1:9/mcp';

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-consent-list-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});
afterEach(() => removeTempRoot(root));

const cli = (args: string[]) => runCliBin(args, { cwd: project, home: root, agentDir }, '', { GITHUB_TOKEN });
const projectServers = (servers: Record<string, unknown>) =>
  writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: servers }));

describe('allow lists what Allow would do', () => {
  it("shows a URL server's !command header, requestHeadersCommand and the ${GITHUB_TOKEN} it sends, running none", async () => {
    const ran = join(root, 'ran');
    projectServers({
      remote: {
        url: URL,
        headers: { 'X-Who': `!touch '${ran}'`, Authorization: 'Bearer ${GITHUB_TOKEN}' },
        requestHeadersCommand: { command: 'sh', args: ['-c', `touch '${ran}'; echo {}`] },
        oauth: {
          authServerMetadataUrl: 'https://auth.example/.well-known/oauth-authorization-server',
          clientId: 'c1',
        },
      },
    });
    const list = await cli(['allow']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`  url: ${URL}`);
    expect(list.stdout).toContain(`  header X-Who runs: touch '${ran}'`);
    expect(list.stdout).toContain(`  requestHeadersCommand runs: sh -c 'touch '\\''${ran}'\\''; echo {}'`);
    expect(list.stdout).toContain('  sends ${GITHUB_TOKEN}: your value, in header Authorization');
    expect(list.stdout).toContain(
      '  oauth: authServerMetadataUrl https://auth.example/.well-known/oauth-authorization-server, clientId c1',
    );
    expect(list.stdout + list.stderr).not.toContain(GITHUB_TOKEN);
    expect(existsSync(ran)).toBe(false);
  });

  it('says when the entry would use a sign-in the user already has for that URL', async () => {
    await createTokenStore({ agentDir, piAuthFile: false, adapterSignIns: false }).update(
      'linear',
      URL,
      () => ({
        name: 'linear',
        url: URL,
        tokens: { access_token: 'at-consent-list-secret', token_type: 'Bearer' },
      }),
    );
    projectServers({ linear: { url: URL } });
    const list = await cli(['allow']);
    expect(list.stdout).toContain(`  sign-in: would use your existing sign-in to "linear" at ${URL}`);
    expect(list.stdout).not.toContain('at-consent-list-secret');
  });
});

describe('a not-allowed project entry with the name of your server', () => {
  it('leaves yours answering, not "skipped", and the list says Deny keeps it', async () => {
    writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify({ mcpServers: { mine: stdioFixture() } }));
    projectServers({ mine: { command: 'sh', args: ['-c', 'exit 3'] } });
    const call = await cli(['call', 'mine__echo', '{"text":"still yours"}']);
    expect(call.stdout).toContain('still yours');
    expect(call.code).toBe(0);
    expect(call.stderr).not.toMatch(/skipped mine/);
    expect(call.stderr).toContain(
      `Your own server "mine" from ${join(agentDir, 'mcp.json')} runs meanwhile.`,
    );
    const list = await cli(['allow']);
    // HOME is the temp root: the user's file is shown as ~/agent/mcp.json.
    expect(list.stdout).toContain('  Deny keeps your own mine from ~/agent/mcp.json');
  });
});
