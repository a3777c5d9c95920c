// The host's socket is its lock: one listener per path, a stale socket file replaced.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { answers, listenExclusive } from '../../../src/host/exclusive-listen.ts';

let dir: string;
const servers: Server[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pmh-l-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

const server = () => {
  const s = createServer((socket) => socket.end());
  servers.push(s);
  return s;
};

it('of many starters at once, exactly one listens; the socket is 0600', async () => {
  const path = join(dir, 'h.sock');
  const outcomes = await Promise.all(Array.from({ length: 8 }, () => listenExclusive(server(), path)));
  expect(outcomes.filter((o) => o === 'listening')).toHaveLength(1);
  expect(statSync(path).mode & 0o777).toBe(0o600);
});

it('a stale socket file (its listener killed) is replaced; a live one is not', async () => {
  const path = join(dir, 'h.sock');
  const squatter = spawn(
    process.execPath,
    ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((resolve) => squatter.stdout!.once('data', resolve));
  expect(await answers(path)).toBe(true);
  squatter.kill('SIGKILL');
  await new Promise((resolve) => squatter.once('exit', resolve));
  expect(existsSync(path)).toBe(true);
  expect(await answers(path)).toBe(false);

  const outcomes = await Promise.all([listenExclusive(server(), path), listenExclusive(server(), path)]);
  expect(outcomes.sort()).toEqual(['listening', 'taken']);
  expect(await answers(path)).toBe(true);
  expect(await listenExclusive(server(), path)).toBe('taken');
});
