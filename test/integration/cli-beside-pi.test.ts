// The CLI used beside Pi on the same agent dir: it declares what Pi declares (so a server offers it the
// same tools and the shared cache keeps every tool), speaks in CLI words, and gives a server the roots
// its entry asks for (none by default, so a filesystem server keeps the folder in its args).

import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVERYTHING_ENTRY, stdioFixture } from '../fixtures/servers/spawn.ts';
import { removeTempRoot } from '../support/hosts.ts';
import { type CliRun, runCliBin } from '../support/output-channels.ts';

const FILESYSTEM_ENTRY = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);

let root: string;
let agentDir: string;
let project: string;

function cli(args: string[], stdin?: string): Promise<CliRun> {
  return runCliBin(args, { cwd: project, home: root, agentDir }, stdin);
}

function config(servers: Record<string, unknown>, settings: Record<string, unknown> = {}) {
  writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify({ settings, mcpServers: servers }, null, 2));
}

const everything = { command: process.execPath, args: [EVERYTHING_ENTRY] };

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'pi-mcp-cli-beside-')));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(() => removeTempRoot(root));

describe('the CLI declares what Pi declares', () => {
  it('server-everything offers the CLI its elicitation and sampling tools, and the cache keeps them', async () => {
    config({ everything });
    const run = await cli(['tools', 'everything', '--json']);
    expect(run.code).toBe(0);
    const tools = (JSON.parse(run.stdout) as Array<{ tool: string }>).map((t) => t.tool);
    expect(tools).toContain('trigger-elicitation-request');
    expect(tools).toContain('trigger-sampling-request');
    const cache = JSON.parse(readFileSync(join(agentDir, 'mcp-cache.json'), 'utf8'));
    const cached = cache.servers.everything;
    expect(cached.tools.map((t: { name: string }) => t.name)).toContain('trigger-elicitation-request');
    expect(cached.clientCapabilities).toEqual(['elicitation', 'sampling']);
    // One count on every surface: the text status, the JSON status and the listing agree.
    const text = await cli(['status']);
    const counted = text.stdout.match(
      /everything: connected, shared \(host pid \d+\) — lazy, stdio, (\d+) tools, (\d+) resources/,
    );
    expect(counted).not.toBeNull();
    const json = JSON.parse((await cli(['status', '--json'])).stdout);
    expect(json.servers[0]).toMatchObject({ tools: Number(counted![1]), resources: Number(counted![2]) });
    const listed = JSON.parse(run.stdout) as Array<{ uriTemplate?: string; tool: string }>;
    expect(listed.length).toBe(Number(counted![1]) + Number(counted![2]));
  }, 60_000);

  it('without a terminal, an elicitation tool is declined with the reason, and sampling says the CLI has no model', async () => {
    config({ everything });
    const elicit = await cli(['call', 'everything__trigger-elicitation-request', '{}']);
    expect(elicit.stdout).not.toMatch(/no longer provided/);
    expect(elicit.stdout).toMatch(/stdin is not a terminal/);
    const sample = await cli(['call', 'everything__trigger-sampling-request', '{"prompt":"hi"}']);
    expect(sample.stdout).toMatch(/CLI has no model to sample with/);
    expect(sample.stdout).not.toMatch(/MCP error -32600: MCP error -32600/);
  }, 60_000);
});

describe('CLI words', () => {
  it('a misspelled tool gets "did you mean" and CLI commands, not ToolSearch', async () => {
    config({ good: stdioFixture() });
    const run = await cli(['call', 'good__ech', '{"text":"x"}']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Did you mean good__echo\?/);
    expect(run.stdout).toMatch(/pi-mcp-actors search/);
    expect(run.stdout).not.toMatch(/ToolSearch|no longer provided/);
  });

  it('an approveTools refusal names the terminal, not print or JSON mode', async () => {
    config({ good: { ...stdioFixture(), approveTools: true } });
    const run = await cli(['call', 'good__echo', '{"text":"x"}']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/stdin is not a terminal/);
    expect(run.stdout).toMatch(/run the command in a terminal/);
    expect(run.stdout).not.toMatch(/print or JSON mode|run Pi interactively/);
  });

  it('a failed server is retried by running the command again, not /mcp reconnect', async () => {
    config({ broken: { ...stdioFixture(['--crash-on-start']), lifecycle: 'keep-alive' } });
    const run = await cli(['status']);
    expect(run.code).toBe(1);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/\/mcp reconnect/);
  });
});

describe('roots', () => {
  const allowed = (run: CliRun) => run.stdout.split('\n').filter((l) => l.startsWith('/'));

  it('by default a filesystem server keeps the folder in its args (no roots are sent)', async () => {
    const shared = join(root, 'shared-folder');
    mkdirSync(shared);
    config({ fs: { command: process.execPath, args: [FILESYSTEM_ENTRY, shared] } });
    const run = await cli(['call', 'fs__list_allowed_directories', '{}']);
    expect(run.code).toBe(0);
    expect(allowed(run)).toEqual([shared]);
  }, 30_000);

  it('roots: true gives the working directory, a list gives those folders', async () => {
    // server-everything asks for the roots when the tool runs (server-filesystem fetches them in the
    // background after initialize, which a call right after connecting may overtake).
    const other = join(root, 'other');
    mkdirSync(other);
    config({ cwdRoot: { ...everything, roots: true }, listed: { ...everything, roots: ['../other'] } });
    const cwd = await cli(['call', 'cwdRoot__get-roots-list', '{}']);
    expect(cwd.code, cwd.stderr).toBe(0);
    expect(cwd.stdout).toContain(pathToFileURL(project).href);
    const listed = await cli(['call', 'listed__get-roots-list', '{}']);
    expect(listed.stdout).toContain(pathToFileURL(other).href);
    expect(listed.stdout).not.toContain(pathToFileURL(project).href);
  }, 60_000);
});
