import { readFileSync } from 'node:fs';
import { loadConfig } from './src/config/load.ts';
const F = (p: string) => readFileSync(`test/fixtures/config/${p}`, 'utf8');
const files: Record<string, string> = {
  '/h/.pi/agent/mcp.json': F('pi-mcp-adapter/mcp.json'),
  '/h/.cursor/mcp.json': F('cursor/mcp.json'),
  '/h/.claude.json': F('claude-code/claude.json'),
  '/work/project/.mcp.json': F('claude-code/project-mcp.json'),
  '/work/project/.pi/mcp.json': F('broken/typos.json'),
};
const r = loadConfig({ agentDir: '/h/.pi/agent', cwd: '/work/project', homeDir: '/h', env: { HOME: '/h', CONTEXT7_API_KEY: 'c7key', SENTRY_TOKEN: 'sentrytok', DATABASE_URL: 'postgres://x', API_KEY: 'k' }, projectTrusted: true, readFile: (p) => files[p], platform: 'linux' });
console.log(JSON.stringify(r, null, 1));
