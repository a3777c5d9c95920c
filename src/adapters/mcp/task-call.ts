// A tool that must run as a task on a 2025-11-25 server (`execution.taskSupport: "required"`):
// `tools/call` with a `task` field answers at once with the task; ./task-polling.ts follows it with
// `tasks/get`, fetches the result with `tasks/result` and cancels it with `tasks/cancel`. Every
// request goes through the connection's request path (`send`; `poll` for the task's own requests, where
// a refused connection is asked again rather than lost), so an HTTP session that expires mid-task is
// renewed and the polling goes on there.

import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
} from '@modelcontextprotocol/core';
import { type FollowOptions, followTask, type Send, type TaskStatus } from './task-polling.ts';

const CANCEL_TIMEOUT_MS = 5_000;

export async function callAsTask(
  send: Send,
  poll: Send,
  name: string,
  args: Record<string, unknown>,
  options: FollowOptions,
) {
  const { signal, timeout } = options;
  const requestOptions = signal ? { signal, timeout } : { timeout };
  const created = await send(`tools/call ${name}`, signal, (client) =>
    client.request(
      { method: 'tools/call', params: { name, arguments: args, task: {} } },
      CreateTaskResultSchema,
      requestOptions,
    ),
  );
  return followTask(
    {
      get: async (taskId) =>
        status(
          await poll(`tasks/get ${name}`, signal, (client) =>
            client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, requestOptions),
          ),
        ),
      // A failed or cancelled task's result says why (an error result, or the error the server stored).
      result: (task) =>
        poll(`tasks/result ${name}`, signal, (client) =>
          client.request(
            { method: 'tasks/result', params: { taskId: task.taskId } },
            CallToolResultSchema,
            requestOptions,
          ),
        ),
      cancel: async (taskId) => {
        await poll('tasks/cancel', undefined, (client) =>
          client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema, {
            timeout: CANCEL_TIMEOUT_MS,
          }),
        );
      },
    },
    status(created.task),
    options,
  );
}

function status(task: {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollInterval?: number;
}): TaskStatus {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    ...(task.pollInterval === undefined ? {} : { pollMs: task.pollInterval }),
  };
}
