// An isolated world for one Pi run: temp HOME, agent dir ($HOME/.pi/agent, also PI_CODING_AGENT_DIR),
// a project folder as cwd, models.json pointing at the fake model, retries off.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const FAKE_PROVIDER = 'fake';
export const FAKE_MODEL = 'fake-model';

export interface AgentDirOptions {
  /** The fake model's base URL (`llm.baseUrl`, `http://127.0.0.1:<port>/v1`). */
  llmBaseUrl: string;
  /** Written to `<agentDir>/mcp.json` (Pi's and our user-level MCP config) when given. */
  mcpJson?: unknown;
  /** Written to `<projectDir>/.pi/mcp.json` when given. */
  projectMcpJson?: unknown;
  /** Merged over `{"retry":{"enabled":false}}` in `<agentDir>/settings.json`. */
  settings?: Record<string, unknown>;
  /** Extra files, relative to the temp root (`home/...`, `project/...`); objects are JSON-encoded. */
  files?: Record<string, unknown>;
}

export interface AgentDir {
  /** Temp root holding everything below; removed by cleanup(). */
  root: string;
  home: string;
  agentDir: string;
  projectDir: string;
  /** Env for Pi: HOME, PI_CODING_AGENT_DIR, PI_OFFLINE=1. */
  env: Record<string, string>;
  cleanup(): void;
}

function writeFile(path: string, content: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
}

export function createAgentDir(opts: AgentDirOptions): AgentDir {
  const root = mkdtempSync(join(tmpdir(), 'pi-e2e-'));
  const home = join(root, 'home');
  const agentDir = join(home, '.pi', 'agent');
  const projectDir = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(projectDir, { recursive: true });
  writeFile(join(agentDir, 'models.json'), {
    providers: {
      [FAKE_PROVIDER]: {
        baseUrl: opts.llmBaseUrl,
        api: 'openai-completions',
        apiKey: 'fake-key',
        models: [{ id: FAKE_MODEL, contextWindow: 128000, maxTokens: 4096 }],
      },
    },
  });
  writeFile(join(agentDir, 'settings.json'), { retry: { enabled: false }, ...opts.settings });
  if (opts.mcpJson !== undefined) writeFile(join(agentDir, 'mcp.json'), opts.mcpJson);
  if (opts.projectMcpJson !== undefined) writeFile(join(projectDir, '.pi', 'mcp.json'), opts.projectMcpJson);
  for (const [rel, content] of Object.entries(opts.files ?? {})) writeFile(join(root, rel), content);
  return {
    root,
    home,
    agentDir,
    projectDir,
    env: { HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: '1' },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
