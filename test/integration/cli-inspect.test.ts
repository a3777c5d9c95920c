// `pi-mcp-actors inspect` prints URLs the user can use: the page answers 200 to the printed http URL
// (a request from the real bin's output), and the printed PI_MCP_INSPECT ws URL accepts a session.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { removeTempRoot } from '../support/hosts.ts';

const BIN = resolve(import.meta.dirname, '../../bin/pi-mcp-actors.mjs');
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pi-mcp-inspect-cli-'));
  mkdirSync(join(root, 'agent'));
});
afterEach(() => removeTempRoot(root));

describe('pi-mcp-actors inspect', () => {
  it('prints an inspector URL that opens (200) and a PI_MCP_INSPECT URL a session can connect to', async () => {
    const child = spawn(process.execPath, [BIN, 'inspect'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: root, PI_CODING_AGENT_DIR: join(root, 'agent') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      const printed = await new Promise<string>((done, fail) => {
        child.stdout.on('data', (d) => {
          stdout += d;
          if (stdout.includes('Ctrl-C')) done(stdout);
        });
        child.once('exit', (code) => fail(new Error(`inspect exited ${code}: ${stdout}`)));
      });
      const page = /Inspector: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(printed)?.[1];
      const session = /PI_MCP_INSPECT='(ws:\/\/127\.0\.0\.1:\d+\/ws\?token=[^']+)'/.exec(printed)?.[1];
      expect(printed).not.toContain('***');
      expect(page).toBeDefined();
      expect(session).toBeDefined();
      const response = await fetch(page!);
      expect(response.status).toBe(200);
      await response.text();
      const socket = new WebSocket(session!);
      await new Promise<void>((done, fail) => {
        socket.once('open', () => done());
        socket.once('error', fail);
      });
      socket.close();
    } finally {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGINT');
      await exited;
    }
  });
});
