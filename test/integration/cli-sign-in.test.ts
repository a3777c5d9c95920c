// `pi-mcp-actors login` as a user runs it where no browser can reach the loopback (SSH): the URL the
// browser was redirected to is pasted, typed on a TTY (the real bin inside tmux) or piped in (the
// real bin as a child process whose stdin stays open). The OAuth fixture plays the authorization
// server; the test's "browser" stops at the redirect and never opens the loopback callback.

import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  authorizationRedirect,
  followAuthorization,
  type OAuthFixture,
  startOAuthFixture,
} from '../fixtures/oauth/start.ts';
import { removeTempRoot } from '../support/hosts.ts';
import { runCliBin } from '../support/output-channels.ts';

const BIN = resolve(import.meta.dirname, '../../bin/pi-mcp-actors.mjs');
const AUTHORIZE = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/;

let oauth: OAuthFixture;
let root: string;
let agentDir: string;

beforeAll(async () => {
  oauth = await startOAuthFixture();
});
afterAll(async () => {
  await oauth?.stop();
});
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cli-sign-in-'));
  agentDir = join(root, 'agent');
  mkdirSync(agentDir);
  writeFileSync(
    join(agentDir, 'mcp.json'),
    JSON.stringify({ mcpServers: { linear: { url: oauth.url, auth: 'oauth' } } }),
  );
});
afterEach(() => removeTempRoot(root));

const env = () => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: root,
  PI_CODING_AGENT_DIR: agentDir,
  PI_MCP_NO_BROWSER: '1',
});

/** The tool works afterwards from another CLI process: the sign-in is in the shared store. */
async function expectSignedIn(): Promise<void> {
  const call = await runCliBin(['call', 'linear__whoami', '{}'], { cwd: root, home: root, agentDir });
  expect(call.code, call.stderr).toBe(0);
  expect(call.stdout).toMatch(/^client dcr-\w+ scopes mcp$/m);
}

/** `login linear` with the redirect URL piped in once the URL is shown. */
async function loginByPipe(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'login', 'linear'], { cwd: root, env: env(), stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((done) => child.on('close', done));
  try {
    await vi.waitFor(() => expect(stderr).toMatch(AUTHORIZE), { timeout: 20_000, interval: 50 });
    child.stdin.write(`${await authorizationRedirect(AUTHORIZE.exec(stderr)![1]!)}\n`);
    return { code: await exited, stdout, stderr };
  } finally {
    child.kill();
  }
}

const cli = (args: string[]) => runCliBin(args, { cwd: root, home: root, agentDir });

describe('the CLI names its own sign-in command', () => {
  it('before the first sign-in, a call of the server\'s tool says to sign in (not "no longer provided")', async () => {
    const call = await cli(['call', 'linear__whoami', '{}']);
    expect(call.code).toBe(1);
    const output = `${call.stdout}${call.stderr}`;
    expect(call.stdout).toContain('MCP server "linear" lists its tools once you are signed in');
    expect(call.stdout).toContain('Sign in: `pi-mcp-actors login linear`');
    expect(output).not.toContain('no longer provided');
    expect(output).not.toContain('/mcp-auth');
    const status = await cli(['status']);
    expect(status.stdout).toContain('needs authentication: sign in: `pi-mcp-actors login linear`');
    expect(`${status.stdout}${status.stderr}`).not.toContain('/mcp-auth');
  });

  it('after a refused refresh: the reason docs/config.md promises, and `pi-mcp-actors login`', async () => {
    const own = await startOAuthFixture(['--token-ttl', '2']);
    try {
      writeFileSync(
        join(agentDir, 'mcp.json'),
        JSON.stringify({ mcpServers: { linear: { url: own.url, auth: 'oauth' } } }),
      );
      const login = await loginByPipe();
      expect(login.code, login.stderr).toBe(0);
      await own.admin('revoke-refresh');
      await own.admin('expire-access');
      const call = await cli(['call', 'linear__whoami', '{}']);
      expect(call.code).toBe(1);
      // The server's copy in the shared host may still be connected from the login (the call then fails
      // on it) or not (the connect fails): either way the reason, and the CLI's own command.
      expect(call.stdout).toContain('needs authentication');
      expect(call.stdout).toContain('the authorization server refused the refresh token');
      expect(call.stdout).toContain('`pi-mcp-actors login linear`');
      expect(`${call.stdout}${call.stderr}`).not.toContain('/mcp-auth');
    } finally {
      await own.stop();
    }
  });
});

describe('pi-mcp-actors login, pasting the redirect URL', () => {
  it('piped stdin: a line that is not a URL is answered, the redirect URL signs in, and the process exits with stdin still open', async () => {
    const child = spawn(process.execPath, [BIN, 'login', 'linear'], { cwd: root, env: env(), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    try {
      await vi.waitFor(() => expect(stderr).toMatch(AUTHORIZE), { timeout: 20_000, interval: 50 });
      const location = await authorizationRedirect(AUTHORIZE.exec(stderr)![1]!);
      child.stdin.write('\nnot a url\n');
      await vi.waitFor(() => expect(stderr).toContain('That is not a URL'), {
        timeout: 10_000,
        interval: 50,
      });
      child.stdin.write(`${location}\n`);
      expect(await exited, stderr).toBe(0);
    } finally {
      child.kill();
    }
    expect(stdout).toContain('linear: signed in.');
    await expectSignedIn();
  });

  it('piped stdin that ends at once: the sign-in keeps waiting for the loopback', async () => {
    const child = spawn(process.execPath, [BIN, 'login', 'linear'], { cwd: root, env: env(), stdio: 'pipe' });
    child.stdin.end();
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    try {
      await vi.waitFor(() => expect(stderr).toMatch(AUTHORIZE), { timeout: 20_000, interval: 50 });
      const location = await authorizationRedirect(AUTHORIZE.exec(stderr)![1]!);
      await (await fetch(location)).text();
      expect(await exited, stderr).toBe(0);
    } finally {
      child.kill();
    }
  });

  /** `login linear` on a TTY (tmux); `play` gets the authorization URL once the prompt shows. */
  async function loginOnTty(play: (url: string, tmux: (...args: string[]) => string) => Promise<void>) {
    const socket = `cli-sign-in-${process.pid}-${randomBytes(4).toString('hex')}`;
    const tmux = (...args: string[]) =>
      execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    const marker = join(root, 'exit-code');
    const script = `'${process.execPath}' '${BIN}' login linear; echo "EXIT=$?" > '${marker}.tmp'; mv '${marker}.tmp' '${marker}'; exec sleep 600`;
    const vars = Object.entries({ ...env(), TERM: 'tmux-256color' }).map(([k, v]) => `${k}=${v}`);
    tmux(
      'new-session',
      '-d',
      '-s',
      'cli',
      '-x',
      '200',
      '-y',
      '50',
      '-c',
      root,
      'env',
      '-i',
      ...vars,
      'sh',
      '-c',
      script,
    );
    const serverPid = Number(tmux('display-message', '-p', '-t', 'cli', '#{pid}').trim());
    const screen = () => tmux('capture-pane', '-p', '-J', '-t', 'cli', '-S', '-');
    try {
      await vi.waitFor(() => expect(screen()).toMatch(/Redirect URL: $/m), {
        timeout: 20_000,
        interval: 100,
      });
      await play(AUTHORIZE.exec(screen().replace(/\n/g, ''))![1]!, tmux);
      await vi.waitFor(() => expect(screen()).toContain('linear: signed in.'), {
        timeout: 20_000,
        interval: 100,
      });
      // The process ends by itself: the prompt let go of the terminal.
      await vi.waitFor(() => expect(existsSync(marker)).toBe(true), { timeout: 10_000, interval: 100 });
      expect(readFileSync(marker, 'utf8').trim()).toBe('EXIT=0');
    } finally {
      try {
        process.kill(serverPid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }

  it('a TTY (the real bin in tmux): the pasted URL is typed at the prompt and the sign-in completes', async () => {
    await loginOnTty(async (url, tmux) => {
      tmux('send-keys', '-t', 'cli', '-l', await authorizationRedirect(url));
      tmux('send-keys', '-t', 'cli', 'Enter');
    });
    await expectSignedIn();
  });

  it('a TTY where the browser reaches the loopback: the prompt is given up and the process exits', async () => {
    await loginOnTty((url) => followAuthorization(url));
    await expectSignedIn();
  });
});
