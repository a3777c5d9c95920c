// Runs the real Pi (Node 22 + the vendored bundle) headless: print, JSON and RPC mode.
// Every run gets its own process group; timeouts and cleanup kill the group.
import { type ChildProcess, spawn } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import { node22Path, piCliPath, repoRoot } from '../../../scripts/pi-paths.mjs';
import { type AgentDir, FAKE_MODEL, FAKE_PROVIDER } from './agent-dir.ts';

export interface PiOptions {
  dir: AgentDir;
  /** `-e <path>` each: a file or package dir, absolute or relative to the repo root (Pi's cwd is the temp project). */
  extensions?: string[];
  /** Passes `--no-builtin-tools` (extension tools stay active). */
  noBuiltinTools?: boolean;
  /** More CLI arguments, placed before the prompt (e.g. `['--no-mcp']`, `['--tools', 'read,echo_tool']`). */
  args?: string[];
  /** Extra environment (the base env is minimal: PATH, TMPDIR, LANG + the agent dir's env). */
  env?: Record<string, string>;
  /** Kill the process group after this long; default 25 s. */
  timeoutMs?: number;
}

export interface PiOneShotOptions extends PiOptions {
  prompt: string | string[];
}

export interface PiRunResult {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** One JSONL record from Pi's stdout (JSON or RPC mode). */
export type PiRecord = { type: string; [key: string]: any };

export interface PiJsonResult extends PiRunResult {
  events: PiRecord[];
  /** Stdout lines that were not JSON (should be none). */
  unparsed: string[];
}

// Below vitest's 30 s test timeout, so a stuck Pi fails with our message and its stderr.
const DEFAULT_TIMEOUT_MS = 25_000;
/** Running Pi processes and the temp root of the agent dir each one uses. */
const live = new Map<ChildProcess, string>();

/** The argv after `node22 cli.js`, without the prompt. */
export function piArgs(opts: PiOptions, mode: 'print' | 'json' | 'rpc'): string[] {
  const args = ['--no-session', '--provider', FAKE_PROVIDER, '--model', FAKE_MODEL];
  if (mode === 'print') args.unshift('-p');
  else args.unshift('--mode', mode);
  for (const ext of opts.extensions ?? []) args.push('-e', isAbsolute(ext) ? ext : resolve(repoRoot, ext));
  if (opts.noBuiltinTools) args.push('--no-builtin-tools');
  args.push(...(opts.args ?? []));
  return args;
}

function piEnv(opts: PiOptions): Record<string, string> {
  const base: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' };
  for (const key of ['TMPDIR', 'LANG', 'LC_ALL'] as const) {
    const value = process.env[key];
    if (value) base[key] = value;
  }
  return { ...base, ...opts.dir.env, ...opts.env };
}

function spawnPi(opts: PiOptions, argv: string[], stdin: 'ignore' | 'pipe'): ChildProcess {
  const child = spawn(node22Path, [piCliPath, ...argv], {
    cwd: opts.dir.projectDir,
    env: piEnv(opts),
    detached: true, // own process group: killGroup reaches everything Pi started in it
    stdio: [stdin, 'pipe', 'pipe'],
  });
  live.set(child, opts.dir.root);
  child.once('close', () => live.delete(child));
  return child;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // group already gone
  }
}

/** Kills every Pi still running that this module started, or only those using `dir` (cleanup safety net). */
export function killAllPi(dir?: AgentDir): void {
  for (const [child, root] of live) if (!dir || root === dir.root) killGroup(child);
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
}

async function runOnce(opts: PiOneShotOptions, mode: 'print' | 'json'): Promise<PiRunResult> {
  const prompts = Array.isArray(opts.prompt) ? opts.prompt : [opts.prompt];
  const child = spawnPi(opts, [...piArgs(opts, mode), '--', ...prompts], 'ignore');
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  const { code, signal } = await Promise.race([exitOf(child), spawnError]).finally(() => clearTimeout(timer));
  return { pid: child.pid!, code, signal, stdout, stderr, timedOut };
}

/** `pi -p`: the final assistant text on stdout. */
export function runPiPrint(opts: PiOneShotOptions): Promise<PiRunResult> {
  return runOnce(opts, 'print');
}

/** Split on LF only (Pi's JSONL may contain U+2028 inside strings). */
function parseJsonl(text: string): { records: PiRecord[]; unparsed: string[] } {
  const records: PiRecord[] = [];
  const unparsed: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line));
    } catch {
      unparsed.push(line);
    }
  }
  return { records, unparsed };
}

/** `pi --mode json`: the JSONL event stream, parsed. */
export async function runPiJson(opts: PiOneShotOptions): Promise<PiJsonResult> {
  const result = await runOnce(opts, 'json');
  const { records, unparsed } = parseJsonl(result.stdout);
  return { ...result, events: records, unparsed };
}

export interface RpcResponse {
  type: 'response';
  id?: string;
  command: string;
  success: boolean;
  data?: any;
  error?: string;
}

/** A UI request a dialog method sent; answer it with `{value}`, `{confirmed}` or `{cancelled: true}`. */
export type UiAnswer = { value: string } | { confirmed: boolean } | { cancelled: true };

export interface PiRpcOptions extends PiOptions {
  /** Answers dialog requests (select/confirm/input/editor); default cancels them. */
  onDialog?: (request: PiRecord) => UiAnswer | undefined;
}

export interface CommandOutput {
  response: RpcResponse;
  /** Records emitted from sending the command up to and including its response. */
  records: PiRecord[];
  /** `ctx.ui.notify` messages among them, in order. */
  notifications: { message: string; level: string }[];
}

export interface PiRpc {
  readonly pid: number;
  /** Every stdout record so far (responses, events, extension UI requests). */
  readonly records: readonly PiRecord[];
  readonly stderr: string;
  /** Resolves with the exit status once Pi has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a command (an `id` is added) and resolves with its response. */
  send(
    command: { type: string; [key: string]: unknown },
    opts?: { timeoutMs?: number },
  ): Promise<RpcResponse>;
  /** First record matching `predicate` at index >= `since` (default 0), waiting for it if needed. */
  waitForRecord(
    predicate: (r: PiRecord) => boolean,
    opts?: { since?: number; timeoutMs?: number },
  ): Promise<PiRecord>;
  /** `prompt` and, when a run started, wait for `agent_settled`; returns the records of that run. */
  promptAndWait(message: string, opts?: { timeoutMs?: number }): Promise<CommandOutput>;
  /** Runs a slash command (`/mcp`, `/echo-status x`) and collects what it printed. */
  runCommand(text: string, opts?: { timeoutMs?: number }): Promise<CommandOutput>;
  /** Closes stdin (orderly shutdown) and waits; kills the process group after `timeoutMs`. */
  close(opts?: { timeoutMs?: number }): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL to the process group. */
  kill(): void;
}

function notificationsIn(records: PiRecord[]): { message: string; level: string }[] {
  return records
    .filter((r) => r.type === 'extension_ui_request' && r.method === 'notify')
    .map((r) => ({ message: String(r.message), level: String(r.notifyType ?? 'info') }));
}

/** `pi --mode rpc`, ready for commands once `get_state` has answered. */
export async function startPiRpc(opts: PiRpcOptions): Promise<PiRpc> {
  const child = spawnPi(opts, piArgs(opts, 'rpc'), 'pipe');
  const records: PiRecord[] = [];
  const listeners = new Set<() => void>();
  let stderr = '';
  let buffer = '';
  let nextId = 0;
  let exitedFlag = false;
  const exited = exitOf(child).then((status) => {
    exitedFlag = true;
    for (const l of listeners) l();
    return status;
  });
  child.on('error', () => {});
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buffer += d;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
      if (line.trim() === '') continue;
      let record: PiRecord;
      try {
        record = JSON.parse(line);
      } catch {
        record = { type: 'unparsed', line };
      }
      records.push(record);
      if (
        record.type === 'extension_ui_request' &&
        ['select', 'confirm', 'input', 'editor'].includes(record.method)
      ) {
        const answer = opts.onDialog?.(record) ?? { cancelled: true };
        write({ type: 'extension_ui_response', id: record.id, ...answer });
      }
    }
    for (const l of listeners) l();
  });

  function write(obj: unknown): void {
    if (!child.stdin!.writable) throw new Error('pi rpc: stdin is closed');
    child.stdin!.write(`${JSON.stringify(obj)}\n`);
  }

  function waitForRecord(
    predicate: (r: PiRecord) => boolean,
    {
      since = 0,
      timeoutMs = DEFAULT_TIMEOUT_MS,
      what = 'a matching record',
    }: { since?: number; timeoutMs?: number; what?: string } = {},
  ): Promise<PiRecord> {
    return new Promise((resolve, reject) => {
      let checked = since;
      const check = (): boolean => {
        for (; checked < records.length; checked++) {
          if (predicate(records[checked]!)) {
            resolve(records[checked]!);
            return true;
          }
        }
        if (exitedFlag) {
          reject(new Error(`pi rpc exited while waiting for ${what}; stderr:\n${stderr.slice(-2000)}`));
          return true;
        }
        return false;
      };
      if (check()) return;
      const timer = setTimeout(() => {
        listeners.delete(listener);
        reject(new Error(`pi rpc: no ${what} within ${timeoutMs} ms; stderr:\n${stderr.slice(-2000)}`));
      }, timeoutMs);
      const listener = () => {
        if (check()) {
          clearTimeout(timer);
          listeners.delete(listener);
        }
      };
      listeners.add(listener);
    });
  }

  async function send(
    command: { type: string; [key: string]: unknown },
    sendOpts: { timeoutMs?: number } = {},
  ): Promise<RpcResponse> {
    const id = `h${++nextId}`;
    const since = records.length;
    write({ ...command, id });
    return (await waitForRecord((r) => r.type === 'response' && r.id === id, {
      since,
      timeoutMs: sendOpts.timeoutMs,
      what: `the response to ${JSON.stringify(command).slice(0, 200)}`,
    })) as RpcResponse;
  }

  async function promptAndWait(
    message: string,
    waitOpts: { timeoutMs?: number } = {},
  ): Promise<CommandOutput> {
    const since = records.length;
    const response = await send({ type: 'prompt', message }, waitOpts);
    if (response.success && response.data?.disposition === 'started') {
      await waitForRecord((r) => r.type === 'agent_settled', {
        since,
        timeoutMs: waitOpts.timeoutMs,
        what: `agent_settled after prompt ${JSON.stringify(message).slice(0, 200)}`,
      });
    }
    const slice = records.slice(since);
    return { response, records: slice, notifications: notificationsIn(slice) };
  }

  const rpc: PiRpc = {
    get pid() {
      return child.pid!;
    },
    records,
    get stderr() {
      return stderr;
    },
    exited,
    send,
    waitForRecord,
    promptAndWait,
    runCommand: (text, cmdOpts) => promptAndWait(text.startsWith('/') ? text : `/${text}`, cmdOpts),
    async close({ timeoutMs = 20_000 } = {}) {
      child.stdin!.end();
      const timer = setTimeout(() => killGroup(child), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    kill: () => killGroup(child),
  };

  // Ready once the runtime answers a command (extensions loaded, session_start emitted).
  await Promise.race([
    send({ type: 'get_state' }),
    exited.then(() => {
      throw new Error(`pi rpc exited during startup; stderr:\n${stderr.slice(-2000)}`);
    }),
  ]);
  return rpc;
}
