// A user of pi-mcp-adapter's default store (the OS keyring, which we cannot read): connecting to a
// server they signed in to there says to sign in here once more, and why, through the real connector
// against the OAuth fixture.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpConnector } from '../../../src/adapters/mcp/index.ts';
import { createTokenStore } from '../../../src/auth/token-store.ts';
import { type OAuthFixture, startOAuthFixture } from '../../fixtures/oauth/start.ts';
import { definition } from '../../support/config.ts';

let dir: string;
let fixture: OAuthFixture | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oauth-keyring-'));
});
afterEach(async () => {
  await fixture?.stop();
  fixture = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe("pi-mcp-adapter's keyring sign-ins", () => {
  it('needs-auth names /mcp-auth and says the keyring sign-in cannot be read; not without pi-mcp-adapter', async () => {
    fixture = await startOAuthFixture();
    const def = definition({ name: 'linear', transport: 'http', url: fixture.url, auth: 'oauth' });
    const connect = (agentDir: string) =>
      createMcpConnector({ tokenStore: createTokenStore({ agentDir }) })(def, {
        signal: new AbortController().signal,
      });

    await expect(connect(dir)).rejects.toMatchObject({
      kind: 'auth',
      message:
        'Server "linear" needs authentication (HTTP 401): run /mcp-auth linear (or `pi-mcp-actors login linear`)',
    });

    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ packages: ['npm:pi-mcp-adapter@2.36.0'] }));
    await expect(connect(dir)).rejects.toMatchObject({
      kind: 'auth',
      message: expect.stringMatching(
        /run \/mcp-auth linear .*; a sign-in to "linear" made with pi-mcp-adapter stays in the OS keyring, which pi-mcp-actors cannot read \(that needs a native module\), so sign in here once more$/,
      ),
    });
    expect((await fixture.stats()).registrations).toBe(0);
  });
});
