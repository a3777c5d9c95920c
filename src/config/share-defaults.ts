// Which sessions share one running copy of a server in the shared host when its entry says nothing:
// `project`, except for well-known servers whose state belongs to one client. Two sessions driving one
// browser tab, one terminal or one chain of thoughts would step on each other, so those run in each
// session. The user's own `share` always wins. Why each is here: docs/shared-host.md.

import { SERVER_DEFAULTS } from './defaults.ts';
import type { LoadedConfig, ServerDefinition, ShareScope } from './types.ts';

/** npm packages (and the commands they install) that keep per-client state, with what that state is. */
export const PER_CLIENT_SERVERS: ReadonlyArray<{ packages: string[]; keeps: string }> = [
  {
    packages: ['@playwright/mcp', 'mcp-server-playwright', 'playwright-mcp'],
    keeps: 'a browser and its tabs',
  },
  { packages: ['chrome-devtools-mcp'], keeps: 'a browser and its selected page' },
  {
    packages: ['@modelcontextprotocol/server-puppeteer', 'mcp-server-puppeteer'],
    keeps: 'a browser and its page',
  },
  { packages: ['@browsermcp/mcp'], keeps: 'a connection to one browser tab' },
  {
    packages: ['@wonderwhy-er/desktop-commander', 'desktop-commander'],
    keeps: 'terminal processes and their sessions',
  },
  {
    packages: ['@modelcontextprotocol/server-sequential-thinking', 'mcp-server-sequential-thinking'],
    keeps: 'the history of one chain of thoughts',
  },
  { packages: ['mongodb-mcp-server'], keeps: 'the database connection its `connect` tool opened' },
];

const PER_CLIENT = new Set(PER_CLIENT_SERVERS.flatMap((s) => s.packages));

/** The `share` a server runs with: its own, else `session` for a per-client server, else the default. */
export function shareScopeOf(definition: ServerDefinition): ShareScope {
  if (definition.share) return definition.share;
  return keepsPerClientState(definition) ? 'session' : SERVER_DEFAULTS.share;
}

/** Where this server runs: its `share`; in the session when its connect needs the session's process. */
export function shareOf(definition: ServerDefinition): ShareScope {
  if (definition.trace || definition.commandValues?.length || definition.requestHeadersCommand)
    return 'session';
  return shareScopeOf(definition);
}

/** Whether a session with this config runs any server in the shared host. */
export function usesSharedHost(config: Pick<LoadedConfig, 'settings' | 'servers'>): boolean {
  return config.settings.sharedHost && config.servers.some((d) => shareOf(d) !== 'session');
}

/** Whether a session with this config runs any server itself (so needs the MCP SDK in its own process). */
export function runsServersInSession(config: Pick<LoadedConfig, 'settings' | 'servers'>): boolean {
  return config.servers.some((d) => !config.settings.sharedHost || shareOf(d) === 'session');
}

/** A stdio server whose command line runs one of PER_CLIENT_SERVERS (`npx -y @playwright/mcp@latest`…). */
export function keepsPerClientState(definition: ServerDefinition): boolean {
  if (definition.transport !== 'stdio') return false;
  return [definition.command ?? '', ...definition.args].some((word) => PER_CLIENT.has(packageName(word)));
}

/**
 * `@scope/name@1.2` → `@scope/name`, `/usr/bin/desktop-commander` → `desktop-commander`, and a file of
 * an installed package, `…/node_modules/@playwright/mcp/cli.js` → `@playwright/mcp`.
 */
function packageName(word: string): string {
  const installed = word.lastIndexOf('node_modules/');
  if (installed >= 0) {
    const [first = '', second = ''] = word.slice(installed + 'node_modules/'.length).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  const at = word.lastIndexOf('@');
  const name = at > 0 ? word.slice(0, at) : word;
  if (name.startsWith('@')) return name;
  return name.slice(name.lastIndexOf('/') + 1);
}
