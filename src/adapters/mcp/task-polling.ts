// Following a task to its end, for both Tasks protocols (2025-11-25 and the 2026-07-28
// `io.modelcontextprotocol/tasks` extension): poll its status at the interval the server asks for,
// pass each new status message on as progress, and fetch the result once it is over. The task id is
// what the call holds on to: a poll whose stream or connection dropped is asked again, until the call
// has gone a whole timeout without a successful poll. A call that ends before its task (aborted, or
// given up on) cancels the task.

import type { Client } from '@modelcontextprotocol/client';
import { CallError } from '../../ports/call-error.ts';
import type { Progress } from '../../ports/connection.ts';

/** The connection's request path (session renewal, errors as CallError). */
export type Send = <T>(
  what: string,
  signal: AbortSignal | undefined,
  request: (client: Client) => Promise<T>,
) => Promise<T>;

export interface TaskStatus {
  taskId: string;
  status: string;
  statusMessage?: string;
  /** How long the server asks us to wait between polls. */
  pollMs?: number;
}

/** One protocol's requests about a task (each goes through the connection's request path). */
export interface TaskRequests<S extends TaskStatus, R> {
  get(taskId: string): Promise<S>;
  /** The outcome of a task in a terminal status: its result, or a thrown error saying why not. */
  result(task: S): Promise<R>;
  cancel(taskId: string): Promise<void>;
}

export interface FollowOptions {
  signal?: AbortSignal;
  /** How long the call may go without a successful poll. */
  timeout: number;
  onProgress?: (progress: Progress) => void;
}

const DEFAULT_POLL_MS = 1_000;
const MIN_POLL_MS = 100;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const DROPPED = 'the connection dropped; still following the task';

export async function followTask<S extends TaskStatus, R>(
  requests: TaskRequests<S, R>,
  created: S,
  options: FollowOptions,
): Promise<R> {
  const { signal, timeout, onProgress } = options;
  let task = created;
  let updates = 0;
  let lastMessage: string | undefined;
  const report = (message: string) => {
    if (message === lastMessage) return;
    lastMessage = message;
    onProgress?.({ progress: ++updates, message });
  };
  let lastHeard = Date.now();
  /** Asks again after a drop while the call's timeout allows. */
  const resumable = async <T>(ask: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        const answer = await ask();
        lastHeard = Date.now();
        return answer;
      } catch (error) {
        const wait = pollMs(task);
        if (signal?.aborted || !dropped(error) || Date.now() + wait - lastHeard > timeout) throw error;
        report(DROPPED);
        await pause(wait, signal);
      }
    }
  };
  try {
    report(task.statusMessage ?? task.status);
    while (!TERMINAL.has(task.status)) {
      await pause(pollMs(task), signal);
      task = await resumable(() => requests.get(task.taskId));
      report(task.statusMessage ?? task.status);
    }
    return await resumable(() => requests.result(task));
  } catch (error) {
    // Aborted, or given up on: the server need not work on for nobody.
    if (!TERMINAL.has(task.status)) await requests.cancel(task.taskId).catch(() => {});
    throw error;
  }
}

/** A failure of the way to the server, not of the task: asking again may work. */
function dropped(error: unknown): boolean {
  if (!(error instanceof CallError)) return false;
  if (error.kind === 'http') return (error.code ?? 0) >= 500;
  return error.kind === 'dropped' || error.kind === 'network' || error.kind === 'timeout';
}

function pollMs(task: TaskStatus): number {
  return Math.max(MIN_POLL_MS, task.pollMs ?? DEFAULT_POLL_MS);
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    timer.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
