// A newcomer's CLI day (issue 36): the real bin against real servers (server-everything, a fixture that
// crashes on start) in a temp agent dir. A command starts only the servers it needs; a failure's stderr
// line is printed once; an unreadable config is said to be one; the words are for a person.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVERYTHING_ENTRY, stdioFixture } from '../fixtures/servers/spawn.ts';
import { removeTempRoot } from '../support/hosts.ts';
import { type CliRun, runCliBin } from '../support/output-channels.ts';

let root: string;
let agentDir: string;
let project: string;
let marker: string;

function cli(args: string[]): Promise<CliRun> {
  return runCliBin(args, { cwd: project, home: root, agentDir });
}

const everything = { command: process.execPath, args: [EVERYTHING_ENTRY] };
const FILESYSTEM_ENTRY = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);
const CRASH_LINE = 'fatal: fixture refuses to start (--crash-on-start)';

/** The crashing fixture, each start counted in `marker`. */
function crashing() {
  const { command, args } = stdioFixture(['--crash-on-start']);
  const quoted = [command, ...args].map((a) => `'${a}'`).join(' ');
  return { command: 'sh', args: ['-c', `echo started >> '${marker}'; exec ${quoted}`] };
}

const starts = () => (existsSync(marker) ? readFileSync(marker, 'utf8').trim().split('\n').length : 0);
const count = (text: string, part: string) => text.split(part).length - 1;

function config(servers: Record<string, unknown>) {
  writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify({ mcpServers: servers }, null, 2));
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'pi-mcp-cli-newcomer-')));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  marker = join(root, 'crash-starts.log');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(() => removeTempRoot(root));

describe('the CLI starts only the servers a command needs', () => {
  it('call everything__echo on a cold cache starts everything only, not the uncached crashing server', async () => {
    config({ everything, crash: crashing() });
    const run = await cli(['call', 'everything__echo', '{"message":"hi"}']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Echo: hi');
    expect(run.stderr).toMatch(
      /everything__echo is not in the tool cache; connecting everything to look for it/,
    );
    expect(starts()).toBe(0);
    // With the cache warm, neither search nor tools of one server nor login touch it either.
    // A search needs every server's tools: it lists the uncached one's, and says so.
    const search = await cli(['search', 'echo']);
    expect(search.stderr).toMatch(/Listing the tools of crash \(not in the tool cache yet\)/);
    const afterSearch = starts();
    expect(afterSearch).toBeGreaterThan(0);
    // With everything's tools cached, its tools, its calls and a login do not touch the crashing one.
    expect((await cli(['tools', 'everything'])).code).toBe(0);
    expect((await cli(['call', 'everything__get-sum', '{"a":1,"b":2}'])).code).toBe(0);
    expect((await cli(['login', 'everything'])).code).not.toBe(0);
    expect(starts()).toBe(afterSearch);
  }, 90_000);

  it('status shows the crashing server’s one stderr line once, in all it prints', async () => {
    config({ crash: crashing() });
    const run = await cli(['status']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/crash: failed/);
    expect(count(run.stdout + run.stderr, CRASH_LINE)).toBe(1);
  }, 60_000);
});

describe('an unreadable config is not "no servers"', () => {
  it('status, tools, search, call and login name the file and line', async () => {
    const file = join(agentDir, 'mcp.json');
    writeFileSync(file, '{\n  "mcpServers": {\n    "a": { "command": "x" oops }\n  }\n}\n');
    for (const args of [['status'], ['tools'], ['search', 'add'], ['call', 'a__b'], ['login', 'a']]) {
      const run = await cli(args);
      const all = run.stdout + run.stderr;
      expect(all, args.join(' ')).not.toMatch(/No MCP servers configured|No tools\.$/m);
      expect(all, args.join(' ')).toMatch(/could not be read/);
      expect(all, args.join(' ')).toContain(file);
      expect(all, args.join(' ')).toMatch(/line 3/);
    }
  }, 90_000);
});

describe('words for a person', () => {
  it('search lists matches with their server and one line, no words for the model, no instructions', async () => {
    config({ everything });
    const run = await cli(['search', 'echo', 'message']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}everything__echo\s+\S/m);
    expect(run.stdout).toMatch(/from everything/);
    expect(run.stdout).not.toMatch(/Loaded \d+ tool|your next step|select:|ToolSearch|instructions/i);
    expect(run.stdout).toMatch(/pi-mcp-actors call <name>/);
    expect(run.stdout.split('\n').length).toBeLessThan(15);
  }, 60_000);

  it('call get-sum suggests everything__get-sum and what to type', async () => {
    config({ everything });
    const run = await cli(['call', 'get-sum', '{"a":1,"b":2}']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Did you mean everything__get-sum\?/);
    expect(run.stdout).toMatch(/pi-mcp-actors call everything__get-sum/);
  }, 60_000);

  it('login of an unknown server suggests the close name and lists the servers that sign in', async () => {
    config({ everything, remote: { url: 'http://127.0.0.1:9/mcp' } });
    const run = await cli(['login', 'remot']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Did you mean "remote"\?/);
    expect(run.stderr).toMatch(/Servers that sign in: remote\./);
  });
});

describe('results carry each piece of data once', () => {
  it('server-filesystem read_text_file prints the file’s text once (its structuredContent repeats it)', async () => {
    const files = join(root, 'files');
    mkdirSync(files);
    const text = 'The first line of a note.\nA second line: 42 apples.\n';
    writeFileSync(join(files, 'note.txt'), text);
    config({ fs: { command: process.execPath, args: [FILESYSTEM_ENTRY, files] } });
    const run = await cli(['call', 'fs__read_text_file', JSON.stringify({ path: join(files, 'note.txt') })]);
    expect(run.code).toBe(0);
    expect(count(run.stdout, 'The first line of a note.')).toBe(1);
    expect(count(run.stdout, '42 apples')).toBe(1);
  }, 60_000);
});
