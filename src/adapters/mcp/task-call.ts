// A tool that must run as a task (`execution.taskSupport: "required"`, the 2025-11-25 Tasks protocol):
// `tools/call` with a `task` field answers at once with the task; we poll `tasks/get` at the interval
// the server asks for, pass each new status message on as progress, and fetch the result with
// `tasks/result` when the task is done. Aborting the call cancels the task (`tasks/cancel`). Every
// request goes through `send`, the connection's request path, so an HTTP session that expires
// mid-task is renewed and the polling goes on there.

import type { Client } from '@modelcontextprotocol/client';
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
} from '@modelcontextprotocol/core';
import type { Progress } from './connection-port.ts';

type Send = <T>(
  what: string,
  signal: AbortSignal | undefined,
  request: (client: Client) => Promise<T>,
) => Promise<T>;

const DEFAULT_POLL_MS = 1_000;
const MIN_POLL_MS = 100;
const CANCEL_TIMEOUT_MS = 5_000;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export interface TaskCallOptions {
  signal?: AbortSignal;
  timeout: number;
  onProgress?: (progress: Progress) => void;
}

export async function callAsTask(
  send: Send,
  name: string,
  args: Record<string, unknown>,
  options: TaskCallOptions,
) {
  const { signal, timeout, onProgress } = options;
  const requestOptions = signal ? { signal, timeout } : { timeout };
  const created = await send(`tools/call ${name}`, signal, (client) =>
    client.request(
      { method: 'tools/call', params: { name, arguments: args, task: {} } },
      CreateTaskResultSchema,
      requestOptions,
    ),
  );
  let task = created.task;
  const taskId = task.taskId;
  let updates = 0;
  let lastMessage: string | undefined;
  const report = () => {
    const message = task.statusMessage ?? task.status;
    if (message === lastMessage) return;
    lastMessage = message;
    onProgress?.({ progress: ++updates, message });
  };
  try {
    report();
    while (!TERMINAL.has(task.status)) {
      await pause(Math.max(MIN_POLL_MS, task.pollInterval ?? DEFAULT_POLL_MS), signal);
      task = await send(`tasks/get ${name}`, signal, (client) =>
        client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, requestOptions),
      );
      report();
    }
  } catch (error) {
    if (signal?.aborted) await cancel(send, taskId);
    throw error;
  }
  // A failed or cancelled task's result says why (an error result, or the error the server stored).
  return send(`tasks/result ${name}`, signal, (client) =>
    client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, requestOptions),
  );
}

async function cancel(send: Send, taskId: string): Promise<void> {
  await send('tasks/cancel', undefined, (client) =>
    client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema, {
      timeout: CANCEL_TIMEOUT_MS,
    }),
  ).catch(() => {});
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
