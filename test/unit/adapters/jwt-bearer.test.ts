// The jwt-bearer token request (`oauth.grantType: "jwt-bearer"`): the identity token read from its
// source each time (environment, file, a real command), used as the assertion (workload identity), or
// first exchanged at a real identity provider on 127.0.0.1 (RFC 8693, enterprise-managed authorization).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readIdentityToken } from '../../../src/adapters/mcp/auth/identity-token.ts';
import { JWT_BEARER_GRANT, jwtBearerRequest } from '../../../src/adapters/mcp/auth/jwt-bearer.ts';

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'jwt-bearer-'));
  dirs.push(dir);
  return dir;
}

describe('readIdentityToken', () => {
  it('reads an environment variable, a file and a command, trimmed, afresh each time', async () => {
    expect(await readIdentityToken({ env: 'ID_TOKEN' }, { ID_TOKEN: ' ey.env \n' })).toBe('ey.env');
    const file = join(tempDir(), 'token');
    writeFileSync(file, 'ey.one\n');
    expect(await readIdentityToken({ file })).toBe('ey.one');
    writeFileSync(file, 'ey.two\n');
    expect(await readIdentityToken({ file })).toBe('ey.two');
    expect(await readIdentityToken({ command: [process.execPath, '-e', 'console.log("ey.cmd")'] })).toBe(
      'ey.cmd',
    );
  });

  it('names the source, never a token, when there is none', async () => {
    await expect(readIdentityToken({ env: 'NOT_SET' }, {})).rejects.toThrow(
      'oauth.identityToken: environment variable NOT_SET holds no token',
    );
    await expect(readIdentityToken({ file: join(tempDir(), 'missing') })).rejects.toThrow(
      /cannot be read \(ENOENT\)/,
    );
    await expect(readIdentityToken({ command: [process.execPath, '-e', 'process.exit(3)'] })).rejects.toThrow(
      /command .* failed/,
    );
  });
});

describe('jwtBearerRequest', () => {
  const target = (learned: string[]) => ({
    authorizationServer: 'https://auth.example.com',
    resource: 'https://mcp.example.com/mcp',
    scope: 'read',
    fetchFn: fetch,
    learnSecret: (value: string) => learned.push(value),
  });

  it('workload identity: the identity token is the assertion', async () => {
    const learned: string[] = [];
    const params = await jwtBearerRequest(
      {
        grantType: 'jwt-bearer',
        identityToken: { command: [process.execPath, '-e', 'console.log("ey.workload")'] },
      },
      target(learned),
    );
    expect(Object.fromEntries(params)).toEqual({
      grant_type: JWT_BEARER_GRANT,
      assertion: 'ey.workload',
      scope: 'read',
    });
    expect(learned).toEqual(['ey.workload']);
  });

  it('enterprise-managed: exchanges the ID token at the IdP for an ID-JAG, which is the assertion', async () => {
    process.env.ID_TOKEN = 'ey.user-id-token';
    const seen: Array<Record<string, string>> = [];
    const idp = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        seen.push({
          ...Object.fromEntries(new URLSearchParams(body)),
          authorization: req.headers.authorization ?? '',
        });
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            access_token: 'ey.id-jag',
            issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
            token_type: 'N_A',
          }),
        );
      });
    });
    servers.push(idp);
    await new Promise<void>((done) => idp.listen(0, '127.0.0.1', done));
    const tokenEndpoint = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/token`;
    const learned: string[] = [];
    const params = await jwtBearerRequest(
      {
        grantType: 'jwt-bearer',
        identityToken: { env: 'ID_TOKEN' },
        tokenExchange: { tokenEndpoint, clientId: 'idp-client' },
      },
      target(learned),
    );
    expect(seen[0]).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: 'ey.user-id-token',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      audience: 'https://auth.example.com',
      resource: 'https://mcp.example.com/mcp',
      client_id: 'idp-client',
    });
    expect(params.get('assertion')).toBe('ey.id-jag');
    expect(params.get('grant_type')).toBe(JWT_BEARER_GRANT);
    expect(learned).toContain('ey.id-jag');
  });
});
