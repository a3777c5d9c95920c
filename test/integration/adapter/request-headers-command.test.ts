// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} references.
// `requestHeadersCommand` against the real HTTP fixture, which refuses requests without the bearer
// token the command prints: the command signs every request (it sees method, url and exact body),
// its output is a secret from then on, and a failing command is a clear connect error.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../../src/config/load.ts';
import type { RequestHeadersCommand } from '../../../src/config/types.ts';
import { ConnectError } from '../../../src/ports/mcp.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { httpDefinition } from '../../fixtures/servers/definitions.ts';
import { rejectionOf, textOf, useAdapterHarness } from './harness.ts';

const harness = useAdapterHarness();
const TOKEN = 'signed-token-7f3a9c2e51';
let dir: string;

// Prints the token, and a signature of the exact request it was shown.
const SIGNER = `
let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const request = JSON.parse(input);
  const body = Buffer.from(request.bodyBase64, 'base64').toString('utf8');
  const method = body ? JSON.parse(body).method : '-';
  process.stdout.write(JSON.stringify({
    Authorization: 'Bearer ' + process.env.SIGNER_TOKEN,
    'X-Signature': [request.version, request.method, new URL(request.url).pathname, method].join(' '),
  }));
});
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-headers-'));
  writeFileSync(join(dir, 'signer.cjs'), SIGNER);
  writeFileSync(join(dir, 'fails.cjs'), "process.stderr.write('no key\\n'); process.exit(3);");
  writeFileSync(join(dir, 'slow.cjs'), 'setTimeout(() => {}, 60_000);');
  writeFileSync(join(dir, 'garbage.cjs'), `process.stdout.write('${TOKEN} is not JSON');`);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const command = (script: string, extra: Partial<RequestHeadersCommand> = {}): RequestHeadersCommand => ({
  command: process.execPath,
  args: [join(dir, script)],
  env: { SIGNER_TOKEN: TOKEN },
  ...extra,
});

describe('requestHeadersCommand', () => {
  test('its headers go on every request: the server that requires them answers', async () => {
    const fixture = await harness.http(['--require-token', TOKEN]);
    const secrets = new SecretValues();
    const connection = await harness.connect(
      httpDefinition(fixture.url, { requestHeadersCommand: command('signer.cjs') }),
      { secrets },
    );
    expect(textOf(await connection.callTool('echo', { text: 'signed' }))).toBe('signed');
    const headers = JSON.parse(textOf(await connection.callTool('request_headers', {})));
    expect(headers['x-signature']).toBe('1 POST /mcp tools/call');
    // From now on the command's output is a secret.
    expect(secrets.redact(`token ${TOKEN}`)).not.toContain(TOKEN);
  });

  test('without the command the same server refuses', async () => {
    const fixture = await harness.http(['--require-token', TOKEN]);
    const error = await rejectionOf(harness.connect(httpDefinition(fixture.url)));
    expect(error.kind).toBe('auth');
  });

  test.each([
    ['fails.cjs', {}, 'exited with code 3'],
    ['slow.cjs', { timeoutMs: 300 }, 'timed out after 300 ms'],
    ['garbage.cjs', {}, 'did not print JSON'],
  ] as const)('%s: a clear connect error, no output quoted', async (script, extra, why) => {
    const fixture = await harness.http();
    const error = await rejectionOf(
      harness.connect(httpDefinition(fixture.url, { requestHeadersCommand: command(script, extra) })),
    );
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.message).toBe(
      `Cannot connect to "fixture-http": its requestHeadersCommand ${why}, so the request was not sent`,
    );
    expect(fixture.requests()).toEqual([]);
  });
});

describe('requestHeadersCommand in the config', () => {
  const load = (entry: Record<string, unknown>, env: Record<string, string> = {}) =>
    loadConfig({
      agentDir: '/home/u/.pi/agent',
      cwd: '/work/app',
      homeDir: '/home/u',
      env,
      projectTrusted: false,
      readFile: (file) =>
        file === '/home/u/.pi/agent/mcp.json' ? JSON.stringify({ mcpServers: { s: entry } }) : undefined,
    });

  test('command, args and env are interpolated; the env values are secrets', () => {
    const config = load(
      {
        url: 'https://mcp.example.com/mcp',
        requestHeadersCommand: {
          command: '~/bin/sign',
          args: ['--key', '${KEY_ID}'],
          env: { SECRET: '${SIGNING_SECRET}' },
        },
      },
      { KEY_ID: 'k1', SIGNING_SECRET: 'sig-secret-value-0042' },
    );
    expect(config.diagnostics.filter((d) => d.level !== 'info')).toEqual([]);
    expect(config.servers[0]?.requestHeadersCommand).toEqual({
      command: '/home/u/bin/sign',
      args: ['--key', 'k1'],
      env: { SECRET: 'sig-secret-value-0042' },
    });
    const secrets = new SecretValues();
    secrets.addDefinitions(config.servers);
    expect(secrets.redact('sig-secret-value-0042')).not.toContain('sig-secret-value-0042');
  });

  test('a wrong shape or a missing variable is reported at its key and costs only that server', () => {
    const shape = load({
      url: 'https://mcp.example.com/mcp',
      requestHeadersCommand: { command: 'x', timeoutMs: 0 },
    });
    expect(shape.servers).toEqual([]);
    expect(shape.diagnostics).toContainEqual(
      expect.objectContaining({ level: 'error', path: 'mcpServers.s.requestHeadersCommand.timeoutMs' }),
    );
    const missing = load({
      url: 'https://mcp.example.com/mcp',
      requestHeadersCommand: { command: 'x', env: { SECRET: '${NOT_SET}' } },
    });
    expect(missing.servers).toEqual([]);
    expect(missing.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'missing-variable',
        path: 'mcpServers.s.requestHeadersCommand.env.SECRET',
      }),
    );
  });
});
