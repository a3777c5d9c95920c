// Consent is for exactly what the user saw (issue 34), through the real CLI and real server processes.
// Each server start appends a label to a file, so "never started" is checked directly:
// - a project's `imports` read only the other clients' files inside the project, never the user's own
//   `~/.cursor/mcp.json` (finding 5);
// - a consent covers the content of the project script the entry names: a changed `server.sh` behind an
//   unchanged entry asks again, and says why (finding 6);
// - `forget` takes a consent back.

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stdioFixture } from '../fixtures/servers/spawn.ts';
import { removeTempRoot } from '../support/hosts.ts';
import { runCliBin } from '../support/output-channels.ts';

let root: string;
let home: string;
let agentDir: string;
let project: string;
let starts: string;

/** A shell line that records `label`, then runs the echo fixture. */
function recordThenServe(label: string): string {
  const { command, args } = stdioFixture();
  const quoted = [command, ...args].map((a) => `'${a}'`).join(' ');
  return `echo ${label} >> '${starts}'; exec ${quoted}`;
}
const counted = (label: string) => ({ command: 'sh', args: ['-c', recordThenServe(label)] });

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'pi-mcp-consent-key-')));
  home = join(root, 'home');
  agentDir = join(home, '.pi', 'agent');
  project = join(root, 'project');
  starts = join(root, 'starts.log');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});
afterEach(() => removeTempRoot(root));

const cli = (args: string[]) => runCliBin(args, { cwd: project, home, agentDir });
const started = () => (existsSync(starts) ? readFileSync(starts, 'utf8').trim().split('\n') : []);
const write = (path: string, value: unknown) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
};

describe("a project's imports", { timeout: 120_000 }, () => {
  it("read the client's project file only, never the user's own ~/.cursor/mcp.json", async () => {
    write(join(home, '.cursor', 'mcp.json'), { mcpServers: { usercursor: counted('user-cursor') } });
    write(join(project, '.cursor', 'mcp.json'), { mcpServers: { projcursor: counted('project-cursor') } });
    write(join(project, '.mcp.json'), { imports: ['cursor'] });

    const status = await cli(['status']);
    expect(status.stdout).not.toMatch(/usercursor/);
    expect(status.stderr).toMatch(/skipped projcursor: defined by a project file and not allowed/);
    expect(started()).toEqual([]);

    // The project's own .cursor/mcp.json is a project server: it starts once allowed, and still alone.
    expect((await cli(['allow', 'projcursor'])).code).toBe(0);
    const allowed = await cli(['status']);
    expect(allowed.stdout).toMatch(/^projcursor: connected/m);
    expect(started()).toEqual(['project-cursor']);
  });

  it("the user's own imports of that client still read ~/.cursor/mcp.json", async () => {
    write(join(home, '.cursor', 'mcp.json'), { mcpServers: { usercursor: counted('user-cursor') } });
    write(join(agentDir, 'mcp.json'), { imports: ['cursor'] });
    write(join(project, '.mcp.json'), { imports: ['cursor'] });
    const status = await cli(['status']);
    expect(status.stdout).toMatch(/^usercursor: connected/m);
    expect(started()).toEqual(['user-cursor']);
  });
});

describe('a consent to an entry that names a project script', { timeout: 120_000 }, () => {
  beforeEach(() => {
    write(join(project, 'server.sh'), `${recordThenServe('v1')}\n`);
    write(join(project, '.mcp.json'), { mcpServers: { script: { command: 'sh', args: ['./server.sh'] } } });
  });

  it('covers that content: a changed server.sh does not run without a new question', async () => {
    expect((await cli(['allow', 'script'])).code).toBe(0);
    const call = await cli(['call', 'script__echo', '{"text":"hi"}']);
    expect(call.code).toBe(0);
    expect(call.stdout).toMatch(/hi/);
    expect(started()).toEqual(['v1']);

    write(join(project, 'server.sh'), `${recordThenServe('v2')}\n`);
    const refused = await cli(['call', 'script__echo', '{"text":"hi"}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/skipped script: .*\.\/server\.sh changed since you allowed it/);
    expect(started()).toEqual(['v1']);

    // The question again: `allow` lists it with why, and a new answer covers the new content.
    const list = await cli(['allow']);
    expect(list.stdout).toMatch(/^script {2}/m);
    expect(list.stdout).toMatch(/\.\/server\.sh changed since you allowed it/);
    await cli(['allow', 'script']);
    // Another content is another copy in the shared host: v2 starts (v1's copy is not reused).
    expect((await cli(['call', 'script__echo', '{"text":"hi"}'])).code).toBe(0);
    expect(started()).toEqual(['v1', 'v2']);
  });

  it('counts a consent remembered before script contents counted as not covering it', async () => {
    await cli(['allow', 'script']);
    const file = join(agentDir, 'mcp-project-consent.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    const folder = Object.keys(data.projects)[0]!;
    data.projects[folder].script = data.projects[folder].script.key;
    writeFileSync(file, JSON.stringify(data));
    const refused = await cli(['call', 'script__echo', '{"text":"hi"}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/skipped script: .*\.\/server\.sh was not part of the consent you gave/);
    expect(started()).toEqual([]);
  });

  it('is for the real folder: the same folder named through a symlink is the same one', async () => {
    const link = join(root, 'link');
    symlinkSync(project, link);
    await cli(['allow', 'script', '--cwd', link]);
    expect((await cli(['call', 'script__echo', '{"text":"hi"}'])).code).toBe(0);
    const data = JSON.parse(readFileSync(join(agentDir, 'mcp-project-consent.json'), 'utf8'));
    expect(Object.keys(data.projects)).toEqual([project]);
  });
});

describe('forget', { timeout: 120_000 }, () => {
  beforeEach(() => {
    write(join(project, '.mcp.json'), { mcpServers: { one: counted('one'), two: counted('two') } });
  });

  it('takes a consent back, says what and where, and the server waits again', async () => {
    await cli(['allow', '--all']);
    const forgot = await cli(['forget', 'one']);
    expect(forgot.code).toBe(0);
    expect(forgot.stdout).toContain(`forgot one for ${project}`);
    expect(forgot.stdout).toContain(join(agentDir, 'mcp-project-consent.json'));
    const status = await cli(['status']);
    expect(status.stderr).toMatch(/skipped one: defined by a project file and not allowed/);
    expect(status.stdout).toMatch(/^two: connected/m);
    expect(started()).toEqual(['two']);

    const unknown = await cli(['forget', 'one']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/"one" has no consent for this project/);

    const all = await cli(['forget', '--all']);
    expect(all.stdout).toContain(`forgot two for ${project}`);
    expect((await cli(['status'])).stderr).toMatch(/skipped two: defined by a project file and not allowed/);
    expect((await cli(['forget'])).stdout).toMatch(/No server of .* has your consent/);
  });
});
