// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} references.
// One test group per source and format, each reading a realistic file of that client from disk.

import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentDirFrom } from '../../../src/config/agent-dir.ts';
import { cleanupLayouts, fixture, layout, names, server, skippedReason, withCode } from './helpers.ts';

afterEach(cleanupLayouts);

describe("Pi 1.5's built-in format in the user file", () => {
  it('reads type, description, timeout (seconds), exposure and toolExposure', () => {
    const l = layout({ 'home/.pi/agent/mcp.json': fixture('pi/mcp.json') });
    const config = l.load({ env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_example_token_123' } });

    const github = server(config, 'github');
    expect(github.transport).toBe('http');
    expect(github.url).toBe('https://api.githubcopilot.com/mcp/');
    expect(github.description).toBe('GitHub issues, pull requests and code search');
    expect(github.headers).toEqual({ Authorization: 'Bearer ghp_example_token_123' });
    expect(github.requestTimeoutMs).toBe(120_000);
    expect(github.exposure).toBe('deferred');
    expect(github.toolExposure).toEqual([
      { pattern: 'search_code', exposure: 'direct' },
      { pattern: 'delete_*', exposure: 'hidden' },
    ]);
    expect(github.source).toEqual({
      file: join(l.agentDir, 'mcp.json'),
      kind: 'user',
      keyPath: 'mcpServers.github',
    });
  });

  it('keeps codemode exposure (Pi tool model) and expands ~ in args', () => {
    const l = layout({ 'home/.pi/agent/mcp.json': fixture('pi/mcp.json') });
    const config = l.load({ env: { GITHUB_PERSONAL_ACCESS_TOKEN: 't0k3n-value' } });
    const filesystem = server(config, 'filesystem');
    expect(filesystem.transport).toBe('stdio');
    expect(filesystem.exposure).toBe('codemode');
    expect(filesystem.args).toEqual([
      '-y',
      '@modelcontextprotocol/server-filesystem',
      join(l.home, 'projects'),
    ]);
  });

  it('skips a disabled server with the reason, and validates its oauth block when enabled', () => {
    const l = layout({ 'home/.pi/agent/mcp.json': fixture('pi/mcp.json') });
    const config = l.load({ env: { GITHUB_PERSONAL_ACCESS_TOKEN: 't0k3n-value' } });
    expect(skippedReason(config, 'linear')).toBe('disabled in the configuration');
    expect(config.skipped.find((s) => s.name === 'linear')?.fix).toContain('"enabled": true');

    l.write({ 'home/.pi/agent/mcp.json': fixture('pi/mcp.json').replace('"enabled": false,', '') });
    const linear = server(l.load({ env: { GITHUB_PERSONAL_ACCESS_TOKEN: 't0k3n-value' } }), 'linear');
    expect(linear.auth).toBe('oauth');
    expect(linear.oauth).toEqual({
      grantType: 'authorization_code',
      clientRegistration: 'cimd',
      callbackPort: 33418,
      scope: 'read write',
    });
  });
});

describe('pi-mcp-adapter format (JSONC) in the user file', () => {
  const env = { HOME: '', CONTEXT7_API_KEY: 'ctx7-key-abcdef', SENTRY_TOKEN: 'sntrys_token_value' };

  it('reads every per-server field of the seed', () => {
    const l = layout({ 'home/.pi/agent/mcp.json': fixture('pi-mcp-adapter/mcp.json') });
    const config = l.load({ env: { ...env, HOME: l.home } });
    expect(config.diagnostics.filter((d) => d.level !== 'info')).toEqual([]);

    const chrome = server(config, 'chrome-devtools');
    expect(chrome).toMatchObject({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', 'chrome-devtools-mcp@latest'],
      lifecycle: 'keep-alive',
      idleTimeoutMs: 0,
      directTools: ['take_screenshot', 'navigate_page'],
      excludeTools: ['performance_*'],
    });

    const context7 = server(config, 'context7');
    expect(context7.headers).toEqual({ CONTEXT7_API_KEY: 'ctx7-key-abcdef' });
    expect(context7.idleTimeoutMs).toBe(5 * 60_000);
    expect(context7.exposeResources).toBe(false);

    const sentry = server(config, 'sentry');
    expect(sentry).toMatchObject({
      auth: 'bearer',
      bearerToken: 'sntrys_token_value',
      startupTimeoutMs: 45_000,
      requestTimeoutMs: 90_000,
      debug: true,
    });

    const jetbrains = server(config, 'jetbrains-index');
    expect(jetbrains.args).toEqual([join(l.home, 'tools/jetbrains-index/dist/index.js'), '--port', '63342']);
    expect(jetbrains.cwd).toBe(join(l.home, 'tools/jetbrains-index'));
    expect(jetbrains.env).toEqual({ IDE_PORT: '63342', LOG_LEVEL: 'warn' });
    expect(jetbrains.lifecycle).toBe('eager');
    expect(jetbrains.idleTimeoutMs).toBe(0);
    expect(jetbrains.directTools).toBe(true);
  });

  it('reads settings and records the import files it looked at', () => {
    const l = layout({ 'home/.pi/agent/mcp.json': fixture('pi-mcp-adapter/mcp.json') });
    const config = l.load({ env: { ...env, HOME: l.home } });
    expect(config.settings).toEqual({
      toolPrefix: 'short',
      protocolVersion: 'auto',
      idleTimeoutMs: 15 * 60_000,
      toonEncode: ['jetbrains-index'],
      captureStats: { path: join(l.home, '.pi/agent/stats/mcp-stats.json'), flushDelayMs: 1000 },
      proxyTool: false,
      outputLimitBytes: 65536,
      directTools: false,
      requestTimeoutMs: 60_000,
      approveTools: false,
      sampling: true,
      samplingAutoApprove: false,
      elicitation: true,
      roots: false,
      sharedHost: true,
      trace: { enabled: false, maxBytes: 262_144, maxEvents: 10_000 },
    });
    expect(config.files).toContainEqual({
      file: join(l.home, '.cursor/mcp.json'),
      kind: 'import',
      found: false,
    });
    expect(config.files).toContainEqual({ file: join(l.home, '.claude.json'), kind: 'import', found: false });
  });
});

describe('imports', () => {
  it('cursor: ~/.cursor/mcp.json with ${env:VAR}; the project .cursor/mcp.json wins when trusted', () => {
    const l = layout({
      'home/.pi/agent/mcp.json': '{ "imports": ["cursor"] }',
      'home/.cursor/mcp.json': fixture('cursor/mcp.json'),
      'project/.cursor/mcp.json': fixture('cursor/project-mcp.json'),
    });
    const config = l.load({ env: { SUPABASE_ACCESS_TOKEN: 'sbp_access_token_1' } });
    expect(names(config)).toEqual(['context7', 'playwright', 'supabase']);
    expect(server(config, 'supabase').env).toEqual({ SUPABASE_ACCESS_TOKEN: 'sbp_access_token_1' });
    expect(server(config, 'supabase').source).toEqual({
      file: join(l.home, '.cursor/mcp.json'),
      kind: 'import',
      importedFrom: 'cursor',
      keyPath: 'mcpServers.supabase',
    });
    expect(server(config, 'playwright').args).toEqual(['@playwright/mcp@latest', '--headless']);

    const untrusted = l.load({ env: { SUPABASE_ACCESS_TOKEN: 'sbp_access_token_1' }, projectTrusted: false });
    expect(server(untrusted, 'playwright').args).toEqual(['@playwright/mcp@latest']);
  });

  it("claude-code: ~/.claude.json user scope plus this project's local scope, which wins", () => {
    const l = layout({ 'home/.pi/agent/mcp.json': '{ "imports": ["claude-code"] }' });
    l.write({ 'home/.claude.json': fixture('claude-code/claude.json', l.project) });
    const config = l.load({ env: { DATABASE_URL: 'postgres://app:pw@localhost/app' } });
    expect(names(config)).toEqual(['asana', 'notion', 'postgres', 'sequential-thinking']);
    expect(server(config, 'asana').transport).toBe('sse');
    expect(server(config, 'notion').headers).toEqual({ 'X-Workspace': 'engineering' });
    expect(server(config, 'notion').source.keyPath).toBe(
      `projects[${JSON.stringify(l.project)}].mcpServers.notion`,
    );
    expect(server(config, 'postgres').args).toEqual([
      '-y',
      '@modelcontextprotocol/server-postgres',
      'postgres://app:pw@localhost/app',
    ]);
    expect(server(config, 'sequential-thinking').env).toEqual({});
    expect(config.diagnostics.filter((d) => d.level !== 'info')).toEqual([]);
  });

  it('claude-desktop: the platform folder, honouring XDG_CONFIG_HOME on Linux', () => {
    const desktop = fixture('claude-desktop/claude_desktop_config.json');
    const l = layout({
      'home/.pi/agent/mcp.json': '{ "imports": ["claude-desktop"] }',
      'home/.config/Claude/claude_desktop_config.json': desktop,
      'home/Library/Application Support/Claude/claude_desktop_config.json': desktop.replace(
        'brave-search',
        'brave-mac',
      ),
      'home/xdg/Claude/claude_desktop_config.json': desktop.replace('brave-search', 'brave-xdg'),
    });
    expect(names(l.load())).toEqual(['brave-search', 'filesystem']);
    expect(server(l.load(), 'brave-search').env).toEqual({ BRAVE_API_KEY: 'BSA-desktop-literal-key-0001' });
    expect(names(l.load({ platform: 'darwin' }))).toEqual(['brave-mac', 'filesystem']);
    expect(names(l.load({ env: { XDG_CONFIG_HOME: join(l.home, 'xdg') } }))).toEqual([
      'brave-xdg',
      'filesystem',
    ]);
  });

  it('vscode: `servers` with types, ${workspaceFolder}, ${env:…}; ${input:…} and envFile are reported', () => {
    const l = layout({
      'home/.pi/agent/mcp.json': '{ "imports": ["vscode"] }',
      'project/.vscode/mcp.json': fixture('vscode/mcp.json'),
    });
    const config = l.load({ env: { LEGACY_KEY: 'legacy-key-0042' } });
    expect(names(config)).toEqual(['fetch', 'github', 'legacy-sse', 'workspace-tool']);
    expect(server(config, 'github').transport).toBe('http');
    expect(server(config, 'legacy-sse')).toMatchObject({
      transport: 'sse',
      headers: { 'X-Api-Key': 'legacy-key-0042' },
    });
    expect(server(config, 'workspace-tool').args).toEqual([join(l.project, 'tools/mcp.js')]);
    expect(skippedReason(config, 'perplexity')).toBe(
      '${input:perplexity-key} in env.PERPLEXITY_API_KEY cannot be resolved',
    );
    expect(withCode(config, 'vscode-inputs')).toHaveLength(1);
    expect(withCode(config, 'unknown-key').map((d) => [d.server, d.level])).toEqual([['fetch', 'warning']]);
  });

  it('codex: [mcp_servers.*] with seconds, bearer_token_env_var, http_headers, env_http_headers, env_vars, tool lists', () => {
    const l = layout({
      'home/.pi/agent/mcp.json': '{ "imports": ["codex"] }',
      'home/.codex/config.toml': fixture('codex/config.toml'),
    });
    const config = l.load({
      env: { FIGMA_OAUTH_TOKEN: 'figma-token-77', FIGMA_TEAM_ID: 'team-9', DOCS_TOKEN: 'docs-1234' },
    });
    expect(names(config)).toEqual(['context7', 'docs', 'figma']);
    expect(server(config, 'context7')).toMatchObject({ startupTimeoutMs: 20_000, requestTimeoutMs: 45_000 });
    expect(server(config, 'figma')).toMatchObject({
      transport: 'http',
      auth: 'bearer',
      bearerToken: 'figma-token-77',
      headers: { 'X-Figma-Region': 'us-east-1', 'X-Figma-Team': 'team-9' },
    });
    expect(server(config, 'docs')).toMatchObject({
      cwd: join(l.home, 'src/docs'),
      env: { LOG_LEVEL: 'debug', DOCS_TOKEN: 'docs-1234' },
      includeTools: ['search', 'open'],
      excludeTools: ['delete'],
    });
    expect(skippedReason(config, 'disabled-one')).toBe('disabled in the configuration');
    expect(server(config, 'docs').source.keyPath).toBe('mcp_servers.docs');
  });

  it('codex: CODEX_HOME moves the file', () => {
    const l = layout({
      'home/.pi/agent/mcp.json': '{ "imports": ["codex"] }',
      'home/elsewhere/config.toml': '[mcp_servers.moved]\ncommand = "moved-server"\n',
    });
    expect(names(l.load({ env: { CODEX_HOME: join(l.home, 'elsewhere') } }))).toEqual(['moved']);
  });

  it('opencode: `mcp` with local/remote, command arrays, environment, {env:VAR} and oauth', () => {
    const l = layout({
      'home/.pi/agent/mcp.json': '{ "imports": ["opencode"] }',
      'home/.config/opencode/opencode.json': fixture('opencode/opencode.json'),
    });
    const config = l.load({ env: { JIRA_API_TOKEN: 'jira-token-5' } });
    expect(names(config)).toEqual(['jira', 'mcp-everything', 'sentry']);
    expect(server(config, 'jira')).toMatchObject({
      transport: 'http',
      headers: { Authorization: 'Bearer jira-token-5' },
    });
    expect(server(config, 'mcp-everything')).toMatchObject({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything'],
      env: { MY_ENV_VAR: 'my_env_var_value' },
      startupTimeoutMs: 10_000,
    });
    expect(server(config, 'sentry')).toMatchObject({
      auth: 'oauth',
      oauth: { grantType: 'authorization_code' },
    });
    expect(skippedReason(config, 'disabled-local')).toBe('disabled in the configuration');
  });

  it('windsurf: serverUrl, disabled and disabledTools', () => {
    const l = layout({
      'home/.pi/agent/mcp.json': '{ "imports": ["windsurf"] }',
      'home/.codeium/windsurf/mcp_config.json': fixture('windsurf/mcp_config.json'),
    });
    const config = l.load();
    expect(names(config)).toEqual(['deepwiki', 'git']);
    expect(server(config, 'deepwiki')).toMatchObject({
      transport: 'http',
      url: 'https://mcp.deepwiki.com/sse',
    });
    expect(server(config, 'git').excludeTools).toEqual(['git_reset']);
    // Disabled: not interpolated, so the unset SLACK_BOT_TOKEN is not an error.
    expect(skippedReason(config, 'slack')).toBe('disabled in the configuration');
    expect(withCode(config, 'missing-variable')).toEqual([]);
  });
});

describe('project files', () => {
  it("Claude Code's .mcp.json: ${VAR:-default} in env and url, ${VAR} in a header", () => {
    const l = layout({ 'project/.mcp.json': fixture('claude-code/project-mcp.json') });
    const config = l.load({ env: { API_KEY: 'api-key-31337' } });
    expect(server(config, 'memory').env).toEqual({ MEMORY_FILE_PATH: './.memory.jsonl' });
    expect(server(config, 'api-server')).toMatchObject({
      url: 'https://api.example.com/mcp',
      headers: { Authorization: 'Bearer api-key-31337' },
    });
    expect(server(config, 'api-server').source).toMatchObject({
      kind: 'project',
      file: join(l.project, '.mcp.json'),
    });
    expect(skippedReason(l.load(), 'api-server')).toBe(
      'environment variable API_KEY (used in headers.Authorization) is not set',
    );
  });

  it('.pi/mcp.json is read from the project directory', () => {
    const l = layout({
      'project/.pi/mcp.json': '{ "mcpServers": { "local": { "command": "./bin/server" } } }',
    });
    const config = l.load();
    expect(server(config, 'local').source).toEqual({
      file: join(l.project, '.pi/mcp.json'),
      kind: 'project',
      keyPath: 'mcpServers.local',
    });
  });
});

describe('--mcp-config and the agent dir', () => {
  it('reads the flag file instead of the user file', () => {
    const l = layout({
      'home/.pi/agent/mcp.json': '{ "mcpServers": { "from-user": { "command": "a" } } }',
      'home/custom/servers.json': '{ "mcpServers": { "from-flag": { "command": "b" } } }',
    });
    const config = l.load({ configPath: '~/custom/servers.json' });
    expect(names(config)).toEqual(['from-flag']);
    expect(server(config, 'from-flag').source.kind).toBe('flag');
    expect(config.files.map((f) => f.file)).not.toContain(join(l.agentDir, 'mcp.json'));
  });

  it('reads a TOML flag file in the Codex format', () => {
    const l = layout({ 'home/codex.toml': fixture('codex/config.toml') });
    const config = l.load({
      configPath: join(l.home, 'codex.toml'),
      env: { FIGMA_OAUTH_TOKEN: 'x-token', FIGMA_TEAM_ID: 't' },
    });
    expect(names(config)).toEqual(['context7', 'docs', 'figma']);
  });

  it('resolves a relative flag path against the project directory', () => {
    const l = layout({ 'project/conf/mcp.json': '{ "mcpServers": { "rel": { "command": "r" } } }' });
    expect(names(l.load({ configPath: 'conf/mcp.json' }))).toEqual(['rel']);
  });

  it('agentDirFrom honours PI_CODING_AGENT_DIR with ~ expansion', () => {
    expect(agentDirFrom({}, '/home/u')).toBe('/home/u/.pi/agent');
    expect(agentDirFrom({ PI_CODING_AGENT_DIR: '~/agents/pi' }, '/home/u')).toBe('/home/u/agents/pi');
    expect(agentDirFrom({ PI_CODING_AGENT_DIR: '/opt/pi' }, '/home/u')).toBe('/opt/pi');
    expect(agentDirFrom({ PI_CODING_AGENT_DIR: '  ' }, '/home/u')).toBe('/home/u/.pi/agent');
  });

  it('a missing or empty user file is no diagnostic', () => {
    const l = layout();
    expect(l.load()).toMatchObject({ servers: [], skipped: [], diagnostics: [] });
    l.write({ 'home/.pi/agent/mcp.json': '' });
    expect(l.load().diagnostics).toEqual([]);
    l.write({ 'home/.pi/agent/mcp.json': '// only a comment\n' });
    expect(l.load().diagnostics).toEqual([]);
  });

  it('a UTF-8 BOM is fine', () => {
    const l = layout({ 'home/.pi/agent/mcp.json': fixture('broken/bom.json') });
    expect(names(l.load())).toEqual(['bom-server']);
  });
});

describe("Pi's own server list (piServers)", () => {
  it('reads a record or a list of named entries, below the user file', () => {
    const l = layout({
      'home/.pi/agent/mcp.json': '{ "mcpServers": { "both": { "command": "from-file" } } }',
    });
    const record = l.load({
      piServers: { both: { command: 'from-pi' }, only: { url: 'https://x.example/mcp' } },
    });
    expect(server(record, 'both').command).toBe('from-file');
    expect(server(record, 'only').source).toEqual({
      file: 'pi.getMcpServers()',
      kind: 'user',
      keyPath: 'only',
    });

    const list = l.load({
      piServers: [{ name: 'listed', config: { command: 'c' } }, { name: 'flat', command: 'f' }, 7],
    });
    expect(names(list)).toEqual(['both', 'flat', 'listed']);
  });

  it('accepts a config object with mcpServers', () => {
    const l = layout();
    expect(names(l.load({ piServers: { mcpServers: { wrapped: { command: 'w' } } } }))).toEqual(['wrapped']);
  });
});
