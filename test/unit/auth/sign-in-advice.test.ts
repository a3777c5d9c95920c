// The words that tell a user to sign in: Pi's /mcp-auth, the CLI's own login command, the reason a
// needs-auth answer keeps, and which unknown tool names a server waiting for a sign-in claims.

import { describe, expect, it } from 'vitest';
import { inSurfaceWords, needsAuthMessage } from '../../../src/adapters/mcp/auth/connect-auth.ts';
import { signInAdvice, signInReason } from '../../../src/auth/sign-in-advice.ts';
import { needsAuthText } from '../../../src/session/ensure-connected.ts';
import { signInFirst } from '../../../src/session/unknown-tool.ts';
import { definition } from '../../support/config.ts';

const linear = definition({ name: 'linear', transport: 'http', url: 'https://mcp.linear.app/mcp' });

describe('sign-in advice per surface', () => {
  it('Pi runs /mcp-auth; the CLI signs in with its login command', () => {
    expect(signInAdvice('linear')).toBe('run /mcp-auth linear');
    expect(signInAdvice('linear', 'cli')).toBe('sign in: `pi-mcp-actors login linear`');
  });

  it('the connect error keeps the reason and names the surface command', () => {
    expect(needsAuthMessage(linear, { kind: 'refresh-refused' }, 401, 'cli')).toBe(
      'Server "linear" needs authentication (HTTP 401): the authorization server refused the refresh token: sign in again: `pi-mcp-actors login linear`',
    );
    expect(needsAuthMessage(linear, { kind: 'refresh-refused' })).toContain(
      'refused the refresh token: sign in again: run /mcp-auth linear',
    );
    expect(needsAuthMessage(linear, { kind: 'sign-in' }, 401, 'cli')).not.toContain('/mcp-auth');
  });

  it('a message the shared host worded for Pi reads, in the CLI, as the CLI would have worded it', () => {
    for (const need of [
      { kind: 'refresh-refused' as const },
      { kind: 'sign-in' as const },
      { kind: 'scope' as const, scope: 'repo' },
    ]) {
      const pi = needsAuthMessage(linear, need);
      expect(inSurfaceWords(pi, 'linear', 'cli')).toBe(needsAuthMessage(linear, need, 401, 'cli'));
      expect(inSurfaceWords(pi, 'linear', 'pi')).toBe(pi);
    }
    expect(inSurfaceWords('tools/call failed: it broke', 'linear', 'cli')).toBe(
      'tools/call failed: it broke',
    );
  });

  it('a needs-auth answer repeats a refused refresh or a missing scope, else only the command', () => {
    const refused = needsAuthMessage(linear, { kind: 'refresh-refused' });
    expect(signInReason(refused)).toBe('the authorization server refused the refresh token');
    expect(
      needsAuthText(
        {
          name: 'linear',
          lastError: { kind: 'auth', detail: { cause: 'connect', message: refused }, at: 0 },
        },
        'cli',
      ),
    ).toBe(
      'MCP server "linear" needs authentication: the authorization server refused the refresh token. Sign in: `pi-mcp-actors login linear`, then try again.',
    );
    const scope = needsAuthMessage(linear, { kind: 'scope', scope: 'admin' });
    expect(
      needsAuthText({
        name: 'linear',
        lastError: { kind: 'auth', detail: { cause: 'connect', message: scope }, at: 0 },
      }),
    ).toBe(
      'MCP server "linear" needs authentication: the server needs scope "admin". Run /mcp-auth linear, then try again.',
    );
    expect(needsAuthText({ name: 'linear' })).toBe(
      'MCP server "linear" needs authentication. Run /mcp-auth linear, then try again.',
    );
  });
});

describe('an unknown tool of a server waiting for its first sign-in', () => {
  it('is claimed by the server whose prefix it carries', () => {
    const waiting = [
      { name: 'github-mcp', prefix: 'server' as const },
      { name: 'linear', prefix: 'server' as const },
    ];
    expect(signInFirst('linear__whoami', waiting, 'cli')).toEqual({
      server: 'linear',
      message:
        'Tool linear__whoami is not known yet: MCP server "linear" lists its tools once you are signed in. Sign in: `pi-mcp-actors login linear`, then try again.',
    });
    // Hyphens become underscores in the prefix.
    expect(signInFirst('github_mcp__create_issue', waiting)?.server).toBe('github-mcp');
    expect(signInFirst('memory__read_graph', waiting)).toBeUndefined();
  });

  it('short and no prefixes: the short prefix, or any name for a server without one', () => {
    expect(signInFirst('github__create_issue', [{ name: 'github-mcp', prefix: 'short' }])?.server).toBe(
      'github-mcp',
    );
    expect(signInFirst('whoami', [{ name: 'linear', prefix: 'none' }])?.server).toBe('linear');
  });
});
