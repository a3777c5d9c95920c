// The host's V8 startup snapshot (src/host/startup-snapshot.ts): an installed build's first host makes
// the blob, the next host starts from it and serves; a blob that is not what its stamp says, or that
// Node refuses, is not used again: the host starts without it, serves, and makes it anew. Real
// processes: the installed package's CLI (bin/ and the dist/ bundle, built into a temp folder), its
// hosts, the stdio fixture server.

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { extensionEntry, installedBuild } from '../../../bench/support/installed.ts';
import { snapshotFiles, stampOf } from '../../../src/host/startup-snapshot.ts';
import { stdioFixture } from '../../fixtures/servers/spawn.ts';
import { runCliProcess } from '../../support/cli-process.ts';
import { hostsUnder, stopHostsUnder } from '../../support/hosts.ts';

let pkg: string;
let build: string;
const root = mkdtempSync(join(tmpdir(), 'pmh-snapshot-'));

beforeAll(() => {
  pkg = extensionEntry();
  build = installedBuild();
}, 120_000);

afterEach(async () => {
  await stopHostsUnder(root, 30_000);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function agentDir(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { fx: stdioFixture() } }));
  return dir;
}

/** `pi-mcp-actors call fx__echo` through the installed package; its answer. */
async function callEcho(dir: string, text: string) {
  const run = await runCliProcess(['call', 'fx__echo', JSON.stringify({ text })], {
    bin: join(pkg, 'bin', 'pi-mcp-actors.mjs'),
    cwd: dir,
    env: { HOME: dir, PI_CODING_AGENT_DIR: dir },
  });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(text);
  return run;
}

const hostLog = (dir: string) => readFileSync(join(dir, 'mcp-host', 'host.log'), 'utf8');
const count = (text: string, what: string) => text.split(what).length - 1;
const MADE = 'startup snapshot made';
const FROM_SNAPSHOT = 'started from the startup snapshot';

/** A host stopped (SIGTERM), with room to make its blob as it stops (about a second). */
const stopHost = (dir: string) => stopHostsUnder(dir, 30_000);

/** The first host's blob, made as it stopped. */
async function madeBlob(dir: string) {
  await callEcho(dir, 'first');
  const files = snapshotFiles(dir, build);
  // Not while it serves.
  expect(existsSync(files.blob)).toBe(false);
  expect(await stopHost(dir)).toHaveLength(1);
  expect(existsSync(files.stamp)).toBe(true);
  expect(hostLog(dir)).toContain(MADE);
  expect(hostLog(dir)).not.toContain(FROM_SNAPSHOT);
  return files;
}

it('the first host of an installed build makes the blob; the next host starts from it and serves', async () => {
  const dir = agentDir('made');
  const files = await madeBlob(dir);
  expect(statSync(files.blob).mode & 0o077).toBe(0);
  expect(readFileSync(files.stamp, 'utf8')).toBe(stampOf(files.blob));

  const run = await callEcho(dir, 'from the snapshot');
  expect(run.stderr).not.toContain('was not used');
  expect(count(hostLog(dir), FROM_SNAPSHOT)).toBe(1);
  expect(existsSync(files.trial)).toBe(false);
  expect(hostsUnder(dir)).toHaveLength(1);
  // It makes no second blob.
  await stopHost(dir);
  expect(count(hostLog(dir), MADE)).toBe(1);
});

it('a blob that is not what its stamp says is not loaded: the host starts without it, serves, and makes it anew', async () => {
  const dir = agentDir('rewritten');
  const files = await madeBlob(dir);
  writeFileSync(files.blob, 'not a snapshot');

  await callEcho(dir, 'after a rewrite');
  expect(hostLog(dir)).not.toContain(FROM_SNAPSHOT);
  await stopHost(dir);
  expect(count(hostLog(dir), MADE)).toBe(2);
  expect(readFileSync(files.stamp, 'utf8')).toBe(stampOf(files.blob));
  expect(statSync(files.blob).size).toBeGreaterThan(1_000_000);
});

it('a blob Node refuses is dropped once its start never loaded: the next host starts without it and makes it anew', async () => {
  const dir = agentDir('refused');
  const files = await madeBlob(dir);
  // Garbage under a stamp that matches it: only Node can tell.
  writeFileSync(files.blob, 'not a snapshot');
  writeFileSync(files.stamp, stampOf(files.blob));

  // This call's host dies as Node reads the blob: the call is answered in the CLI's own process.
  const refused = await callEcho(dir, 'refused');
  expect(refused.stderr).toContain('The shared MCP host was not used');
  expect(existsSync(files.trial)).toBe(true);
  // That start was a while ago and never loaded.
  const past = new Date(Date.now() - 60_000);
  utimesSync(files.trial, past, past);

  await callEcho(dir, 'without the blob');
  expect(hostsUnder(dir)).toHaveLength(1);
  expect(readFileSync(files.failed, 'utf8')).toBe('loaded\n');
  expect(hostLog(dir)).not.toContain(FROM_SNAPSHOT);
  await stopHost(dir);
  expect(count(hostLog(dir), MADE)).toBe(2);

  await callEcho(dir, 'from the new blob');
  expect(count(hostLog(dir), FROM_SNAPSHOT)).toBe(1);
});
