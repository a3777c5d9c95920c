// The `pi-mcp-actors` CLI as a user runs it: the real bin, a temp agent dir, real fixture servers.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { removeTempRoot } from '../support/hosts.ts';
import { type CliRun, runCliBin } from '../support/output-channels.ts';

let root: string;
let agentDir: string;
let project: string;

function cli(args: string[], stdin?: string): Promise<CliRun> {
  return runCliBin(args, { cwd: project, home: root, agentDir }, stdin);
}

function config(servers: Record<string, unknown>, file = join(agentDir, 'mcp.json')) {
  writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
}

/** A stdio fixture whose every start appends a line to `marker`, so a test can count starts. */
function countedFixture(marker: string) {
  const { command, args } = stdioFixture();
  const quoted = [command, ...args].map((a) => `'${a}'`).join(' ');
  return { command: 'sh', args: ['-c', `echo started >> '${marker}'; exec ${quoted}`] };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-cli-'));
  agentDir = join(root, 'agent');
  project = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(() => removeTempRoot(root));

describe('pi-mcp-actors CLI', () => {
  it('status connects every server, prints state and tool count, exit 0', async () => {
    config({ good: stdioFixture() });
    const run = await cli(['status']);
    expect(run.code).toBe(0);
    // It runs in the shared host (on by default), which the CLI started and attached to.
    expect(run.stdout).toMatch(/good: connected, shared \(host pid \d+\) — lazy, stdio, \d+ tools/);
    expect(run.stderr).toMatch(/connecting good…/);
  });

  it('status exits 1 when a server fails, with its error and stderr', async () => {
    config({ good: stdioFixture(), broken: stdioFixture(['--crash-on-start']) });
    const run = await cli(['status']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/good: connected/);
    expect(run.stdout).toMatch(/broken: failed/);
    expect(run.stdout).toMatch(/refuses to start/);
  });

  it('a broken config: each problem with file and key path, the valid servers still work, exit 1', async () => {
    writeFileSync(
      join(agentDir, 'mcp.json'),
      JSON.stringify({ mcpServers: { good: stdioFixture(), bad: { command: 'x', lifecycle: 'keepalive' } } }),
    );
    mkdirSync(join(project, '.pi'));
    writeFileSync(join(project, '.pi', 'mcp.json'), '{ "mcpServers": { oops ');
    const run = await cli(['status', '--trust-project']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(join(agentDir, 'mcp.json'));
    expect(run.stderr).toMatch(/mcpServers\.bad\.lifecycle/);
    expect(run.stderr).toMatch(/keep-alive/);
    expect(run.stderr).toContain(join(project, '.pi', 'mcp.json'));
    expect(run.stdout).toMatch(/good: connected/);
  });

  it('project servers need consent (allow) or --trust-project', async () => {
    mkdirSync(join(project, '.pi'));
    config({ local: stdioFixture() }, join(project, '.pi', 'mcp.json'));
    const untrusted = await cli(['status']);
    expect(untrusted.stderr).toMatch(/skipped local: .*not allowed for this project yet/);
    const trusted = await cli(['status', '--trust-project']);
    expect(trusted.stdout).toMatch(/local: connected/);
  });

  it('tools lists a server’s tools; an unknown server is an error', async () => {
    config({ good: stdioFixture() });
    const run = await cli(['tools', 'good']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^good__add\s+/m);
    expect((await cli(['tools', 'nope'])).code).toBe(1);
  });

  it('tools --json lists resource templates with their URI template; call reads one', async () => {
    config({ docs: stdioFixture(['--templates']) });
    const run = await cli(['tools', 'docs', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toContainEqual({
      name: 'docs__read_doc_by_id',
      server: 'docs',
      tool: 'read_doc_by_id',
      description:
        'Read a resource from the URI template fixture://doc/{id} (text/plain): A fixture document by its number',
      exposure: 'deferred',
      uriTemplate: 'fixture://doc/{id}',
    });
    const read = await cli(['call', 'docs__read_doc_by_id', '{"id":"4"}']);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('contents of fixture://doc/4');
  });

  it('search answers from a warm cache without starting the server; - reads queries from stdin', async () => {
    const marker = join(root, 'starts.log');
    config({ counted: countedFixture(marker) });
    expect((await cli(['tools'])).code).toBe(0); // first run fills the cache
    expect(readFileSync(marker, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(agentDir, 'mcp-cache.json'))).toBe(true);

    const one = await cli(['search', 'add', 'two', 'numbers', '--json']);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout).results[0].name).toBe('counted__add');

    const many = await cli(['search', '-', '--json'], 'echo text back\nadd numbers\n');
    const answers = many.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(answers.map((a) => a.query)).toEqual(['echo text back', 'add numbers']);
    expect(answers[0].results[0].name).toBe('counted__echo');
    expect(readFileSync(marker, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('call runs a tool; wrong arguments exit 1 with the parameter summary', async () => {
    config({ good: stdioFixture() });
    const ok = await cli(['call', 'good__add', '{"a":2,"b":40}']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('42');
    const bad = await cli(['call', 'good__add', '{"a":"two"}']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/Parameters: a \(number, required\)/);
    const notJson = await cli(['call', 'good__add', '{oops']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/not valid JSON/);
  });

  it('usage: no command prints help (exit 0), an unknown command or option exits 2', async () => {
    const help = await cli([]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: pi-mcp-actors/);
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['status', '--nope'])).code).toBe(2);
  });
});
