// Sessions from different terminals share one copy of a server: what differs per terminal (TERM,
// COLORTERM, TMUX…) is not part of an instance's key. When two copies do run, `pi-mcp-actors host`
// says what they differ in, lists each once, and says when the host will stop. Real CLI bin, real host.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { stdioFixture } from '../../fixtures/servers/spawn.ts';
import { removeTempRoot } from '../../support/hosts.ts';
import { runCliBin } from '../../support/output-channels.ts';

let root: string;
let dirs: { cwd: string; home: string; agentDir: string };
let starts: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'per-terminal-'));
  dirs = { cwd: join(root, 'p'), home: join(root, 'h'), agentDir: join(root, 'a') };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  starts = join(root, 'starts');
  writeFileSync(
    join(dirs.agentDir, 'mcp.json'),
    JSON.stringify({ mcpServers: { notes: stdioFixture(['--starts-file', starts]) } }),
  );
});

afterEach(async () => {
  await removeTempRoot(root);
});

const call = (env: Record<string, string>) =>
  runCliBin(['call', 'notes__echo', '{"text":"hi"}'], dirs, '', env);
const startsSoFar = () => readFileSync(starts, 'utf8').trim().split('\n').length;

it('two calls from terminals with different TERM, COLORTERM and TMUX leave one server process', async () => {
  const tmux = await call({
    TERM: 'tmux-256color',
    COLORTERM: 'truecolor',
    TMUX: '/tmp/tmux-1000/default,4242,0',
    TMUX_PANE: '%3',
    TERM_PROGRAM: 'tmux',
  });
  expect(tmux.code, tmux.stderr).toBe(0);
  const plain = await call({ TERM: 'xterm-256color', VSCODE_PID: '77', TERM_PROGRAM: 'vscode' });
  expect(plain.code, plain.stderr).toBe(0);
  expect(startsSoFar()).toBe(1);
  const host = JSON.parse((await runCliBin(['host', '--json'], dirs)).stdout);
  expect(host.instances).toHaveLength(1);
}, 60_000);

it('`host` names what two copies differ in, lists each once, and says when the host stops', async () => {
  expect((await call({ FOO: 'one' })).code).toBe(0);
  expect((await call({ FOO: 'two', TERM: 'dumb' })).code).toBe(0);
  expect(startsSoFar()).toBe(2);
  const { stdout, code } = await runCliBin(['host'], dirs);
  expect(code).toBe(0);
  expect(stdout).toContain('2 copies of notes: they differ in env FOO\n');
  expect(stdout.match(/^ +notes \[project /gm)).toHaveLength(2);
  // No CLI is attached: the host's idle time runs (10 min), and `host` itself does not restart it.
  expect(stdout).toMatch(/^Stops at \d\d:\d\d \(in (9|10) min( \d+ s)?\) unless a session attaches\.$/m);
  const again = (await runCliBin(['host', '--json'], dirs)).stdout;
  const first = JSON.parse((await runCliBin(['host', '--json'], dirs)).stdout);
  expect(first.stopsAt).toBe(JSON.parse(again).stopsAt);
  expect(stdout).not.toMatch(/\(pid \d+\) \(pid \d+\)/);
}, 90_000);
