// A sign-in made with the real pi-mcp-adapter 2.36.0 (from npm, its own OAuth flow and storage code,
// ./fixtures/adapter-sign-in.mts) against the OAuth fixture is used by us with no sign-in and no new
// authorization or client registration:
//   1. its encrypted-file store (`oauthCredentialStore: "encrypted-file"` + its key): the real Pi with
//      our extension calls the server's tool;
//   2. its legacy plaintext tokens.json: our CLI calls the tool after the server dropped the access
//      token, so the refresh (its refresh token, its client) is saved to our store; its file stays as is.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_DIR, provisionAdapter } from '../../bench/support/provision.ts';
import { type OAuthFixture, startOAuthFixture } from '../fixtures/oauth/start.ts';
import { ENSURE_PI_TIMEOUT_MS, ensurePi } from './harness/ensure-pi.ts';
import { EXTENSION, TOOL_SEARCH, toolResultFor } from './harness/mcp.ts';
import { runPiPrint } from './harness/run-pi.ts';
import { createWorld, type World } from './harness/world.ts';

const run = promisify(execFile);
const DRIVER = resolve(import.meta.dirname, 'fixtures/adapter-sign-in.mts');
const BIN = resolve(import.meta.dirname, '../../bin/pi-mcp-actors.mjs');
const TOKEN = /at-[0-9a-f]{24}|rt-[0-9a-f]{24}/;

let node22 = '';
let world: World | undefined;
let fixture: OAuthFixture | undefined;

beforeAll(async () => {
  const [pi] = await Promise.all([ensurePi(), provisionAdapter()]);
  node22 = pi.node22Path;
}, ENSURE_PI_TIMEOUT_MS);

afterEach(async () => {
  await fixture?.stop();
  fixture = undefined;
  await world?.cleanup();
  world = undefined;
});

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** pi-mcp-adapter signs in to `server` with its own code; returns what the driver printed. */
async function adapterSignsIn(
  w: World,
  server: string,
  url: string,
  store: 'encrypted-file' | 'legacy',
): Promise<{ status: string; legacyRead?: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    ...w.dir.env,
    MCP_OAUTH_CALLBACK_PORT: String(await freePort()),
    ...(store === 'legacy' ? { PI_MCP_ADAPTER_TEST_AUTH_STORE: 'memory' } : {}),
  };
  const { stdout } = await run(
    node22,
    ['--experimental-transform-types', '--no-warnings', DRIVER, ADAPTER_DIR, server, url, store],
    { env, timeout: 120_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

function onlyFileUnder(dir: string, name: string): string {
  const [account] = readdirSync(dir);
  return join(dir, account!, name);
}

describe('sign-ins made with the real pi-mcp-adapter 2.36.0', () => {
  it('its encrypted-file store: the real Pi calls the tool with no sign-in and no new authorization', async () => {
    fixture = await startOAuthFixture();
    world = await createWorld({
      mcpJson: {
        mcpServers: { linear: { url: fixture.url, auth: 'oauth' } },
        settings: { oauthCredentialStore: 'encrypted-file' },
      },
      script: [
        {
          toolCalls: [
            { id: 'call_search', name: TOOL_SEARCH, arguments: { query: 'select:linear__whoami' } },
          ],
        },
        { toolCalls: [{ id: 'call_whoami', name: 'linear__whoami', arguments: {} }] },
        { text: 'Signed in already.' },
      ],
    });
    world.dir.env.PI_MCP_ADAPTER_OAUTH_FILE_KEY = randomBytes(32).toString('base64');
    expect(await adapterSignsIn(world, 'linear', fixture.url, 'encrypted-file')).toEqual({
      status: 'authenticated',
    });
    const theirs = onlyFileUnder(join(world.dir.agentDir, 'mcp-oauth-encrypted'), 'credentials.json');
    const written = readFileSync(theirs, 'utf8');
    expect(await fixture.stats()).toMatchObject({ authorizations: 1, registrations: 1 });

    const pi = await runPiPrint({
      dir: world.dir,
      extensions: [EXTENSION],
      prompt: 'Who am I on linear?',
      timeoutMs: 180_000,
    });
    expect(pi.code, pi.stderr).toBe(0);
    expect(toolResultFor(world.llm.requests[2]!.body, 'call_whoami')).toMatch(/^client dcr-\w+ scopes mcp$/);
    expect(await fixture.stats()).toMatchObject({ authorizations: 1, registrations: 1, codeExchanges: 1 });
    expect(readFileSync(theirs, 'utf8')).toBe(written);
    expect(`${pi.stdout}${pi.stderr}`).not.toMatch(TOKEN);
  }, 300_000);

  it('its legacy plaintext file: our CLI refreshes with its refresh token and client, into our store only', async () => {
    fixture = await startOAuthFixture();
    world = await createWorld({
      mcpJson: { mcpServers: { linear: { url: fixture.url } } },
      script: [{ text: 'unused' }],
    });
    expect(await adapterSignsIn(world, 'linear', fixture.url, 'legacy')).toEqual({
      status: 'authenticated',
      legacyRead: 'present',
    });
    const theirs = onlyFileUnder(join(world.dir.agentDir, 'mcp-oauth'), 'tokens.json');
    const written = readFileSync(theirs, 'utf8');
    const clientId = JSON.parse(written).clientInfo.clientId as string;
    // The server no longer takes the access token it issued: the refresh token must do.
    await fixture.admin('expire-access');

    const call = await run(process.execPath, [BIN, 'call', 'linear__whoami', '{}'], {
      env: { PATH: process.env.PATH ?? '', ...world.dir.env },
      timeout: 120_000,
    });
    expect(call.stdout).toMatch(new RegExp(`^client ${clientId} scopes mcp$`, 'm'));
    expect(`${call.stdout}${call.stderr}`).not.toMatch(TOKEN);
    const stats = await fixture.stats();
    expect(stats).toMatchObject({ authorizations: 1, registrations: 1 });
    expect(stats.refreshes).toBeGreaterThanOrEqual(1);
    expect(readFileSync(theirs, 'utf8')).toBe(written);
    const ours = JSON.parse(readFileSync(join(world.dir.agentDir, 'mcp-oauth.json'), 'utf8'));
    const record = ours.servers[`linear|${fixture.url}`];
    expect(record.tokens.access_token).not.toBe(JSON.parse(written).tokens.accessToken);
    expect(record.clientInformation.client_id).toBe(clientId);
  }, 300_000);
});
