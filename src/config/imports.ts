// Where other clients keep their MCP servers. Within one client the more specific file comes first
// (project before user), because the first definition of a name wins. Files inside the project
// directory are only read as a source of servers when the project is trusted. A project's own `imports`
// reach only the files of that client inside the project (projectLocations): never the user's own
// `~/.cursor/mcp.json`, which the user did not import into Pi (issue 34).

import { join, resolve } from 'node:path';
import { expandHome } from './interpolate.ts';
import type { ImportName } from './schema.ts';

export interface ImportLocation {
  client: ImportName;
  file: string;
  /** Inside the project directory: needs project trust. */
  project: boolean;
  /** `~/.claude.json`: also read `projects[<cwd>].mcpServers` (Claude Code's local scope). */
  claudeLocalScope?: boolean;
}

export interface ImportContext {
  homeDir: string;
  cwd: string;
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
}

/** The per-user configuration folder of desktop apps (Claude Desktop, VS Code). */
function appConfigDir(context: ImportContext): string | undefined {
  const { homeDir, env, platform } = context;
  if (platform === 'darwin') return join(homeDir, 'Library', 'Application Support');
  if (platform === 'win32') return env.APPDATA ?? join(homeDir, 'AppData', 'Roaming');
  return xdgConfigHome(context);
}

function xdgConfigHome({ homeDir, env }: ImportContext): string {
  const configured = env.XDG_CONFIG_HOME;
  return configured !== undefined && configured !== ''
    ? expandHome(configured, homeDir)
    : join(homeDir, '.config');
}

export function importLocations(client: ImportName, context: ImportContext): ImportLocation[] {
  const { homeDir, cwd, env } = context;
  const user = (file: string): ImportLocation => ({ client, file, project: false });
  const project = (file: string): ImportLocation => ({ client, file, project: true });
  const appDir = appConfigDir(context);
  switch (client) {
    case 'cursor':
      return [project(join(cwd, '.cursor', 'mcp.json')), user(join(homeDir, '.cursor', 'mcp.json'))];
    case 'claude-code':
      return [
        { client, file: join(homeDir, '.claude.json'), project: false, claudeLocalScope: true },
        user(join(homeDir, '.claude', 'mcp.json')),
      ];
    case 'claude-desktop':
      return appDir === undefined ? [] : [user(join(appDir, 'Claude', 'claude_desktop_config.json'))];
    case 'codex': {
      const codexHome =
        env.CODEX_HOME !== undefined && env.CODEX_HOME !== ''
          ? expandHome(env.CODEX_HOME, homeDir)
          : join(homeDir, '.codex');
      return [user(join(codexHome, 'config.toml'))];
    }
    case 'windsurf':
      return [
        user(join(homeDir, '.codeium', 'windsurf', 'mcp_config.json')),
        user(join(homeDir, '.windsurf', 'mcp.json')),
      ];
    case 'vscode':
      return [
        project(join(cwd, '.vscode', 'mcp.json')),
        ...(appDir === undefined ? [] : [user(join(appDir, 'Code', 'User', 'mcp.json'))]),
      ];
    case 'opencode': {
      const explicit = env.OPENCODE_CONFIG;
      return [
        project(join(cwd, 'opencode.json')),
        project(join(cwd, 'opencode.jsonc')),
        ...(explicit !== undefined && explicit !== ''
          ? [user(resolve(cwd, expandHome(explicit, homeDir)))]
          : []),
        user(join(xdgConfigHome(context), 'opencode', 'opencode.json')),
        user(join(xdgConfigHome(context), 'opencode', 'opencode.jsonc')),
      ];
    }
  }
}

/** The locations a project's `imports` may read: the client's files inside the project. */
export function projectLocations(locations: ImportLocation[]): ImportLocation[] {
  return locations.filter((location) => location.project);
}
