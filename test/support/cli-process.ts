// The real CLI bin as its own process, optionally as another user (`setpriv`, the tests run as root),
// with a hard limit so a command that would hang ends the test with `code: null` instead.

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../../bin/pi-mcp-actors.mjs');

export interface TimedCliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface CliProcessOptions {
  cwd: string;
  env: Record<string, string>;
  /** Run as this uid (and gid), with no supplementary groups. */
  uid?: number;
  /** Killed (SIGKILL, by pid) after this long: a hang shows as code null. */
  limitMs?: number;
  /** Another copy's bin (an installed package's), instead of the checkout's. */
  bin?: string;
}

export function runCliProcess(args: string[], options: CliProcessOptions): Promise<TimedCliRun> {
  const node = [process.execPath, options.bin ?? BIN, ...args];
  const [command, ...argv] =
    options.uid === undefined
      ? node
      : ['setpriv', `--reuid=${options.uid}`, `--regid=${options.uid}`, '--clear-groups', ...node];
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(command!, argv, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const limit = setTimeout(() => child.kill('SIGKILL'), options.limitMs ?? 60_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(limit);
      done({ code, stdout, stderr, ms: Math.round(performance.now() - started) });
    });
  });
}
