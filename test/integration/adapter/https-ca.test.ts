// `caFile` against a real HTTPS MCP server on 127.0.0.1 whose certificate comes from a private test
// CA (made with openssl in a temp dir): trusted with caFile, refused with a clear error without it.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpConnector } from '../../../src/adapters/mcp/index.ts';
import { createTokenStore } from '../../../src/auth/token-store.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { ConnectError } from '../../../src/ports/mcp.ts';
import { startOAuthFixture } from '../../fixtures/oauth/start.ts';
import { httpDefinition } from '../../fixtures/servers/definitions.ts';
import { rejectionOf, textOf, useAdapterHarness } from './harness.ts';

const harness = useAdapterHarness();
let dir: string;

/** A CA and a leaf for 127.0.0.1 signed by it (EC keys: quick to make). */
function makeCertificates(into: string): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: into, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '36500',
    '-subj',
    '/CN=pi-mcp-actors test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl('req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(
    join(into, 'leaf.ext'),
    'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'leaf.pem',
    '-days',
    '36500',
    '-extfile',
    'leaf.ext',
  );
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-ca-'));
  makeCertificates(dir);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function httpsServer(): Promise<string> {
  const fixture = await harness.http([
    '--tls-cert',
    join(dir, 'leaf.pem'),
    '--tls-key',
    join(dir, 'leaf.key'),
  ]);
  return `https://127.0.0.1:${fixture.port}/mcp`;
}

describe('caFile', () => {
  test('with caFile: connects, lists and calls (streamed responses included)', async () => {
    const url = await httpsServer();
    const connection = await harness.connect(httpDefinition(url, { caFile: join(dir, 'ca.pem') }));
    expect(connection.catalog.transport).toBe('streamable-http');
    expect(connection.catalog.tools.map((tool) => tool.name)).toContain('echo');
    expect(textOf(await connection.callTool('echo', { text: 'trusted' }))).toBe('trusted');
    const updates: number[] = [];
    await connection.callTool('progress', { steps: 3 }, { onProgress: (p) => updates.push(p.progress) });
    expect(updates.length).toBeGreaterThan(0);
  });

  test('without caFile: a clear "not trusted; set caFile" error', async () => {
    const url = await httpsServer();
    const error = await rejectionOf(harness.connect(httpDefinition(url)));
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(
      /^Cannot reach "fixture-http": its TLS certificate is not trusted \([A-Z_]+\); if it comes from a private CA, set "caFile" to that CA's PEM file$/,
    );
  });

  test('a caFile with another CA: the error names the file', async () => {
    const url = await httpsServer();
    const other = join(dir, 'other');
    mkdirSync(other);
    makeCertificates(other);
    const error = await rejectionOf(harness.connect(httpDefinition(url, { caFile: join(other, 'ca.pem') })));
    expect(error.message).toContain(
      `its TLS certificate is not signed by the CA in caFile ${join(other, 'ca.pem')}`,
    );
  });

  test("OAuth: the discovery requests to the server's origin trust the CA too", async () => {
    const fixture = await startOAuthFixture([
      '--tls-cert',
      join(dir, 'leaf.pem'),
      '--tls-key',
      join(dir, 'leaf.key'),
    ]);
    harness.defer(() => fixture.stop());
    const agentDir = mkdtempSync(join(tmpdir(), 'mcp-ca-agent-'));
    harness.defer(async () => rmSync(agentDir, { recursive: true, force: true }));
    const connector = createMcpConnector({
      tokenStore: createTokenStore({ agentDir, piAuthFile: false, adapterSignIns: false }),
    });
    const definition = httpDefinition(fixture.url, {
      auth: 'oauth',
      oauth: { grantType: 'authorization_code' },
      caFile: join(dir, 'ca.pem'),
    });
    const error = await rejectionOf(harness.connect(definition, { connector }));
    // Not a TLS failure: the server answered 401 and its OAuth metadata was read over the private CA.
    expect(error.kind).toBe('auth');
    // Its log arrives on its stderr, a little after the answers.
    await vi.waitFor(() =>
      expect(fixture.requests()).toEqual(
        expect.arrayContaining([
          'GET /.well-known/oauth-protected-resource/mcp',
          'GET /.well-known/oauth-authorization-server',
        ]),
      ),
    );
  });

  test('from the config file as pi-mcp-adapter users write it (relative path, read from disk)', async () => {
    const url = await httpsServer();
    const config = loadConfig({
      agentDir: join(dir, 'agent'),
      cwd: dir,
      homeDir: dir,
      env: {},
      projectTrusted: false,
      readFile: (file) =>
        file === join(dir, 'agent', 'mcp.json')
          ? JSON.stringify({ mcpServers: { private: { url, caFile: 'ca.pem' } } })
          : file === join(dir, 'ca.pem')
            ? readFileSync(file, 'utf8')
            : undefined,
    });
    expect(config.diagnostics.filter((d) => d.level !== 'info')).toEqual([]);
    const definition = config.servers[0]!;
    expect(definition.caFile).toBe(join(dir, 'ca.pem'));
    const connection = await harness.connect({ ...definition, startupTimeoutMs: 15_000 });
    expect(textOf(await connection.callTool('echo', { text: 'from config' }))).toBe('from config');
  });
});
