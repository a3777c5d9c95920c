// pi-mcp-adapter's `bearerTokenStore`: its tokens are in the OS keyring, not read here. The server is
// kept either way: with a token of its own it is used; with none, `auth: "bearer"` is read as no auth
// and the note is a warning (so the user sees it), never a skipped server.

import { describe, expect, it } from 'vitest';
import { loadMemory, USER_FILE } from './helpers.ts';

const load = (server: Record<string, unknown>) =>
  loadMemory(
    { [USER_FILE]: JSON.stringify({ mcpServers: { s: { url: 'https://s.example/mcp', ...server } } }) },
    { env: { S_TOKEN: 'tok-from-env-123' } },
  );

describe("pi-mcp-adapter's bearerTokenStore", () => {
  it('with no token of its own: kept without auth, with a warning that says what to set', () => {
    const config = load({ auth: 'bearer', bearerTokenStore: true });
    expect(config.skipped).toEqual([]);
    expect(config.servers.map((s) => [s.name, s.auth])).toEqual([['s', false]]);
    expect(config.diagnostics).toEqual([
      expect.objectContaining({
        level: 'warning',
        code: 'compat-key',
        path: 'mcpServers.s.bearerTokenStore',
        message:
          'Server "s": "bearerTokenStore" (pi-mcp-adapter) is not read: pi-mcp-adapter keeps these tokens only in the OS keyring, which needs a native module to read; the server is kept without a token: give it with "bearerTokenEnv" or "bearerToken".',
      }),
    ]);
  });

  it('with bearerTokenEnv beside it: that token is used and the note is info', () => {
    const config = load({ auth: 'bearer', bearerTokenStore: true, bearerTokenEnv: 'S_TOKEN' });
    expect(config.servers.map((s) => [s.auth, s.bearerToken])).toEqual([['bearer', 'tok-from-env-123']]);
    expect(config.diagnostics.map((d) => [d.level, d.path])).toEqual([
      ['info', 'mcpServers.s.bearerTokenStore'],
    ]);
  });
});
