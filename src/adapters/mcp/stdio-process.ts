// The process side of a stdio MCP server, without any MCP: spawn in its own process group, stdout split
// into lines, stderr into a bounded tail, and a stop that leaves nothing behind (stdin closed, then
// SIGTERM to the group, then SIGKILL). ./stdio-transport.ts turns the lines into JSON-RPC messages.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { LineSplitter } from './line-splitter.ts';
import { endProcessGroup, spawnInGroup } from './process-group.ts';
import type { StderrTail } from './stderr-tail.ts';

/**
 * How long a server may take to exit by itself once its stdin is closed, before its process group gets
 * SIGTERM (itself a clean request to end). Short: Pi's exit waits on it, and servers that end on EOF do
 * so within a few ms while those that keep timers never do.
 */
export const STDIN_GRACE_MS = 20;

export interface StdioProcessOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  tail: StderrTail;
  onStderrLine?: (line: string) => void;
  /** After stdin is closed, how long a server may take to exit by itself. */
  stdinGraceMs?: number;
  /** After SIGTERM, how long before SIGKILL. */
  killGraceMs?: number;
  /** A stdout line longer than this is a protocol error (the SDK's default buffer is 10 MB). */
  maxLineBytes?: number;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /**
   * True when the process ended by itself: before anyone asked it to stop, or with an exit code after
   * it had closed its stdin.
   */
  unexpected: boolean;
}

export class StdioProcess {
  onLine?: (line: string) => void;
  onExit?: (info: ExitInfo) => void;
  onError?: (error: Error) => void;

  private child?: ChildProcessWithoutNullStreams;
  private readonly lines = new LineSplitter();
  private stopping?: Promise<void>;
  private hurry?: () => void;
  private exited?: ExitInfo;
  private readonly exitWaiters = new Set<() => void>();
  private stopRequested = false;
  /**
   * The server closed its stdin (our write met EPIPE): it is ending by itself. A stop asked for after
   * that (the SDK closes its transport on the failed write) does not make its own exit expected.
   */
  private inputClosed = false;

  constructor(private readonly options: StdioProcessOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get exitInfo(): ExitInfo | undefined {
    return this.exited;
  }

  /** Resolves once the process is running; rejects with the spawn error (ENOENT, EACCES, ...). */
  start(): Promise<void> {
    if (this.child) throw new Error('StdioProcess already started');
    const { command, args, env, cwd } = this.options;
    const child = spawnInGroup(command, args, cwd === undefined ? { env } : { env, cwd });
    this.child = child;
    return new Promise<void>((resolve, reject) => {
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.on('error', (error) => {
        if (!spawned) reject(error);
        else this.onError?.(error);
      });
      child.stdin.on('error', (error) => {
        this.noteWriteError(error);
        this.onError?.(error);
      });
      child.stdout.on('error', (error) => this.onError?.(error));
      child.stderr.on('error', () => {});
      child.stdout.on('data', (chunk: Buffer) => this.readStdout(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        for (const line of this.options.tail.write(chunk.toString('utf8'))) this.options.onStderrLine?.(line);
      });
      child.once('exit', (code, signal) => {
        this.exited = {
          code,
          signal,
          unexpected: !this.stopRequested || (this.inputClosed && signal === null),
        };
        for (const wake of this.exitWaiters) wake();
        this.exitWaiters.clear();
        // Whatever the leader left behind in its group (an npx wrapper's server, a helper) goes too.
        if (!this.stopRequested) void this.stop({ graceful: false });
      });
      child.once('close', () => {
        this.flushStdout();
        this.onExit?.(this.exited ?? { code: null, signal: null, unexpected: !this.stopRequested });
      });
    });
  }

  write(text: string): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin?.writable || this.exited) return Promise.reject(new Error('Not connected'));
    return new Promise<void>((resolve, reject) => {
      stdin.write(text, (error) => {
        if (!error) return resolve();
        this.noteWriteError(error);
        reject(error);
      });
    });
  }

  /** Waits until the process has exited, at most `ms`; true when it did. */
  waitForExit(ms: number): Promise<boolean> {
    if (this.exited || !this.child) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      // After a busy stretch the timer runs before the pending exit event is read, so give I/O one
      // more pass before deciding.
      const timer = setTimeout(() => {
        setImmediate(() => {
          this.exitWaiters.delete(wake);
          resolve(this.exited !== undefined);
        });
      }, ms);
      timer.unref();
      this.exitWaiters.add(wake);
    });
  }

  /**
   * Stops the server and everything in its process group. Graceful: close stdin and give the server
   * `stdinGraceMs` to exit by itself first. Idempotent; a non-graceful call hurries a graceful one.
   */
  stop(options: { graceful: boolean } = { graceful: true }): Promise<void> {
    this.stopRequested = true;
    if (!options.graceful) this.hurry?.();
    this.stopping ??= this.runStop(options.graceful);
    return this.stopping;
  }

  private async runStop(graceful: boolean): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    try {
      child.stdin.end();
    } catch {
      // already closed
    }
    if (graceful && !this.exited) {
      const hurried = new Promise<void>((resolve) => {
        this.hurry = resolve;
      });
      await Promise.race([this.waitForExit(this.options.stdinGraceMs ?? STDIN_GRACE_MS), hurried]);
    }
    await endProcessGroup(child, { graceMs: this.options.killGraceMs ?? 2_000 });
    // Wait for the leader's own exit event too, so exit info and the close callback are settled.
    await this.waitForExit(this.options.killGraceMs ?? 2_000);
  }

  private noteWriteError(error: Error): void {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') this.inputClosed = true;
  }

  private readStdout(chunk: Buffer): void {
    for (const line of this.lines.push(chunk)) this.onLine?.(line);
    const max = this.options.maxLineBytes ?? 10 * 1024 * 1024;
    if (this.lines.pending > max) {
      this.lines.reset();
      this.onError?.(new Error(`The server wrote a stdout line longer than ${max} bytes without a newline`));
      void this.stop({ graceful: false });
    }
  }

  private flushStdout(): void {
    const rest = this.lines.end();
    if (rest !== undefined) this.onLine?.(rest);
  }
}
