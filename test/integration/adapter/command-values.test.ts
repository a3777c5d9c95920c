// `!command` values (Pi's built-in MCP and pi-mcp-adapter): loaded from a real config file, run when
// the server connects, against real fixture servers: a header the HTTP server requires, an env
// variable the stdio server reports. The output is a secret; a failing command names its key.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { adapterConfigHash } from '../../../src/config/config-hash.ts';
import { loadConfig } from '../../../src/config/load.ts';
import type { ServerDefinition } from '../../../src/config/types.ts';
import { ConnectError } from '../../../src/ports/mcp.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { stdioFixture } from '../../fixtures/servers/spawn.ts';
import { rejectionOf, textOf, useAdapterHarness } from './harness.ts';

const harness = useAdapterHarness();
const TOKEN = 'cmd-token-5d81e0a7c2';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-command-values-'));
  writeFileSync(join(dir, 'token.sh'), `printf '  %s\\n\\n' "${TOKEN}"\n`);
  writeFileSync(join(dir, 'token.txt'), TOKEN);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function load(entry: Record<string, unknown>): ServerDefinition[] {
  const file = join(dir, 'mcp.json');
  return loadConfig({
    agentDir: dir,
    cwd: dir,
    homeDir: dir,
    env: { PATH: process.env.PATH ?? '' },
    projectTrusted: false,
    readFile: (path) => (path === file ? JSON.stringify({ mcpServers: { s: entry } }) : undefined),
  }).servers;
}

describe('!command values in the config', () => {
  test('a single ! is kept as a command for connect time; !! is a literal !; nothing runs at load', () => {
    const [server] = load({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: `!sh ${join(dir, 'token.sh')}`, 'X-Bang': '!!not a command' },
    });
    expect(server?.headers).toEqual({ 'X-Bang': '!not a command' });
    expect(server?.commandValues).toEqual([
      {
        field: 'headers',
        key: 'Authorization',
        command: `sh ${join(dir, 'token.sh')}`,
        keyPath: 'mcpServers.s.headers.Authorization',
      },
    ]);
  });

  test('the cache identity shared with pi-mcp-adapter hashes the command text, not its output', () => {
    const written = { url: 'https://mcp.example.com/mcp', headers: { Authorization: '!gh auth token' } };
    const environment = { env: {}, homeDir: dir };
    expect(adapterConfigHash(written, environment)).not.toBe(
      adapterConfigHash({ ...written, headers: { Authorization: '!other' } }, environment),
    );
  });
});

describe('!command values at connect', () => {
  test('a header command: its trimmed output is sent, and is a secret from then on', async () => {
    const fixture = await harness.http(['--require-token', TOKEN]);
    const [server] = load({
      url: fixture.url,
      headers: { Authorization: `!echo "Bearer $(cat ${join(dir, 'token.txt')})"` },
    });
    const secrets = new SecretValues();
    const connection = await harness.connect({ ...server!, name: 'fixture-http' }, { secrets });
    expect(textOf(await connection.callTool('echo', { text: 'via command' }))).toBe('via command');
    expect(secrets.redact(`the token is ${TOKEN}`)).not.toContain(TOKEN);
  });

  test('a bearerToken command', async () => {
    const fixture = await harness.http(['--require-token', TOKEN]);
    const [server] = load({ url: fixture.url, bearerToken: `!sh ${join(dir, 'token.sh')}` });
    const connection = await harness.connect({ ...server!, name: 'fixture-http' });
    expect(textOf(await connection.callTool('echo', { text: 'bearer' }))).toBe('bearer');
  });

  test('an env command: the stdio server gets its output', async () => {
    const fixture = stdioFixture([]);
    const [server] = load({
      command: fixture.command,
      args: fixture.args,
      env: { FIXTURE_TOKEN: `!sh ${join(dir, 'token.sh')}` },
    });
    const connection = await harness.connect({ ...server!, name: 'fixture-stdio' });
    const reported = JSON.parse(textOf(await connection.callTool('environment', {})));
    expect(reported.env.FIXTURE_TOKEN).toBe(TOKEN);
  });

  test.each([
    ['echo leaked-output-91; exit 4', 'exited with code 4'],
    ['true', 'printed nothing'],
  ])('%s: a clear connect error naming the key, never the output', async (command, why) => {
    const fixture = await harness.http();
    const [server] = load({ url: fixture.url, headers: { 'X-Key': `!${command}` } });
    const error = await rejectionOf(harness.connect({ ...server!, name: 'fixture-http' }));
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.kind).toBe('spawn');
    expect(error.message).toContain(
      `the command of mcpServers.s.headers.X-Key (in ${join(dir, 'mcp.json')}) ${why}`,
    );
    expect(error.message).not.toContain('leaked-output-91');
    expect(fixture.requests()).toEqual([]);
  });
});
