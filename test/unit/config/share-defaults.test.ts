// Which servers the shared host shares when their entry says nothing: per-client servers (a browser,
// a terminal, a chain of thoughts) run in each session; the user's own `share` always wins.

import { describe, expect, it } from 'vitest';
import { shareOf } from '../../../src/adapters/host/shared-connector.ts';
import { defaultSettings } from '../../../src/config/defaults.ts';
import { runsServersInSession, shareScopeOf, usesSharedHost } from '../../../src/config/share-defaults.ts';
import { definition } from '../../support/config.ts';

describe('the default share of a server', () => {
  it.each([
    ['npx', ['-y', '@playwright/mcp@latest']],
    ['npx', ['@playwright/mcp', '--headless']],
    ['mcp-server-playwright', []],
    ['npx', ['-y', 'chrome-devtools-mcp@0.9.0']],
    ['npx', ['-y', '@modelcontextprotocol/server-puppeteer']],
    ['bunx', ['@browsermcp/mcp@latest']],
    ['npx', ['-y', '@wonderwhy-er/desktop-commander@latest']],
    ['/usr/local/bin/desktop-commander', []],
    ['npx', ['-y', '@modelcontextprotocol/server-sequential-thinking']],
    ['npx', ['-y', 'mongodb-mcp-server', '--readOnly']],
    ['node', ['/usr/lib/node_modules/@playwright/mcp/cli.js', '--headless']],
    ['node', ['/home/u/.npm/_npx/1f2e/node_modules/chrome-devtools-mcp/build/src/index.js']],
  ])('is session for %s %j (it keeps per-client state)', (command, args) => {
    expect(shareScopeOf(definition({ command, args }))).toBe('session');
    expect(shareOf(definition({ command, args }))).toBe('session');
  });

  it.each([
    ['npx', ['-y', '@modelcontextprotocol/server-filesystem', '/work']],
    ['npx', ['-y', '@upstash/context7-mcp']],
    ['npx', ['-y', '@modelcontextprotocol/server-memory']],
    ['node', ['server.js', '--name', 'playwright']],
    ['npx', ['-y', '@someone/playwright-helper']],
    ['node', ['/usr/lib/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js']],
  ])('is project for %s %j', (command, args) => {
    expect(shareScopeOf(definition({ command, args }))).toBe('project');
  });

  it('is project for a remote server, whatever its URL says', () => {
    const remote = definition({ transport: 'http', url: 'https://example.com/@playwright/mcp' });
    expect(shareScopeOf(remote)).toBe('project');
  });

  it('the user’s share always wins, both ways', () => {
    const browser = { command: 'npx', args: ['-y', '@playwright/mcp@latest'] };
    expect(shareScopeOf(definition({ ...browser, share: 'user' }))).toBe('user');
    expect(shareScopeOf(definition({ ...browser, share: 'project' }))).toBe('project');
    const files = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'] };
    expect(shareScopeOf(definition({ ...files, share: 'session' }))).toBe('session');
    expect(shareScopeOf(definition({ ...files, share: 'user' }))).toBe('user');
  });

  it('a server whose connect needs this process runs in the session whatever its share', () => {
    expect(shareOf(definition({ command: 'srv', share: 'user', trace: true }))).toBe('session');
  });
});

describe('where a session’s servers run (what it loads ahead: the host’s client, the MCP SDK)', () => {
  const files = definition({
    name: 'files',
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-filesystem'],
  });
  const browser = definition({ name: 'browser', command: 'npx', args: ['-y', '@playwright/mcp'] });
  const config = (sharedHost: boolean, ...servers: (typeof files)[]) => ({
    settings: { ...defaultSettings(), sharedHost },
    servers,
  });

  it('every server in the host: none in the session', () => {
    expect(usesSharedHost(config(true, files))).toBe(true);
    expect(runsServersInSession(config(true, files))).toBe(false);
  });

  it('a per-client server beside it runs in the session; without the host every one does', () => {
    expect(runsServersInSession(config(true, files, browser))).toBe(true);
    expect(usesSharedHost(config(true, files, browser))).toBe(true);
    expect(runsServersInSession(config(false, files))).toBe(true);
    expect(usesSharedHost(config(false, files))).toBe(false);
  });
});
