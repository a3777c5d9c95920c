// Everything the extension lets out of a session, gathered per channel, for tests that assert no
// secret leaves: what the model read (ToolSearch, tool results), what the user saw (/mcp,
// notifications, status bar), and what was written (log, inspector events, cache), plus CLI runs.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LOG_FILE } from '../../src/config/defaults.ts';
import type { RecordingPi } from './recording-pi.ts';

const BIN = resolve(import.meta.dirname, '../../bin/pi-mcp-actors.mjs');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI bin with only PATH, HOME, the agent dir (and `env`) in its environment. */
export function runCliBin(
  args: string[],
  dirs: { cwd: string; home: string; agentDir: string },
  stdin = '',
  env: Record<string, string> = {},
  onSpawn?: (child: ChildProcess) => void,
): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: dirs.cwd,
      env: { PATH: process.env.PATH, HOME: dirs.home, PI_CODING_AGENT_DIR: dirs.agentDir, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    onSpawn?.(child);
    child.stdin.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/** The session's persistent and user-facing channels (tool outputs are added by the caller). */
export function sessionChannels(
  pi: RecordingPi,
  agentDir: string,
  inspectFile: string,
): Record<string, string> {
  return {
    notifications: JSON.stringify(pi.notifications),
    status: String(pi.status),
    log: read(join(agentDir, LOG_FILE)),
    inspector: read(inspectFile),
    cache: read(join(agentDir, 'mcp-cache.json')),
  };
}

/** The names of the channels whose text contains any of the secrets (with the secret's index). */
export function leaks(channels: Record<string, string>, secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (const [channel, text] of Object.entries(channels)) {
    secrets.forEach((secret, index) => {
      if (text.includes(secret)) found.push(`${channel} has secret #${index} (${JSON.stringify(secret)})`);
    });
  }
  return found;
}
