// Tasks on a 2026-07-28 server: the `io.modelcontextprotocol/tasks` extension (spec:
// modelcontextprotocol/ext-tasks, specification/draft/tasks.md). A modern `tools/call` declares the
// extension in its per-request capabilities; the server then may answer with a task
// (`resultType: "task"`) instead of the result, and ./task-polling.ts follows it with `tasks/get`
// (the result or error comes inline once it is over) and cancels it with `tasks/cancel`. A task that
// stops for input (`input_required`) has its questions put to the user through the same dialogs as
// elicitation and sampling anywhere else, and the answers sent with `tasks/update`.
//
// The SDK's v2 client refuses a `resultType` it does not know, so a task answer is turned, as it
// arrives and before the SDK reads it, into a JSON-RPC error of our own carrying the task; the call
// catches that error and follows the task. `tasks/get` and `tasks/cancel` go through the client's
// generic request method; what the server sends is checked against the extension's published wire
// schemas (@modelcontextprotocol/ext-tasks, core/v2).

import {
  CLIENT_CAPABILITIES_META_KEY,
  type Client,
  ProtocolError,
  type Transport,
} from '@modelcontextprotocol/client';
import { isDetailedTaskV2, TASKS_EXTENSION_ID_V2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { isPlainObject } from '../../plain-object.ts';
import { CallError } from '../../ports/call-error.ts';
import { type AnswerInput, unanswerable } from './input-rounds.ts';
import { type FollowOptions, followTask, type Send, type TaskStatus } from './task-polling.ts';

export const TASKS_EXTENSION = TASKS_EXTENSION_ID_V2;
/** A JSON-RPC error code of our own (implementation-defined range): the server answered with a task. */
export const TASK_CREATED_CODE = -32_098;
const CANCEL_TIMEOUT_MS = 5_000;

/** A tool result as the server sent it. */
type RawResult = Record<string, unknown>;

interface ExtensionTask extends TaskStatus {
  result?: RawResult;
  error?: { code?: unknown; message?: unknown };
  inputRequests?: Record<string, unknown>;
}

/** The `_meta` of a modern `tools/call`: our capabilities, plus the Tasks extension. */
export function declaringTasks(capabilities: Record<string, unknown>): Record<string, unknown> {
  const extensions = isPlainObject(capabilities.extensions) ? capabilities.extensions : {};
  return {
    [CLIENT_CAPABILITIES_META_KEY]: { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } },
  };
}

/** Call after any other onmessage wrapping, before connect (the SDK runs this hook before it parses). */
export function catchCreatedTasks(transport: Transport): void {
  const previous = transport.onmessage;
  transport.onmessage = (message, extra) => {
    previous?.(message, extra);
    const response = message as { result?: unknown; error?: unknown };
    if (!isPlainObject(response.result) || response.result.resultType !== 'task') return;
    const { resultType: _task, _meta, ...task } = response.result;
    delete response.result;
    response.error = { code: TASK_CREATED_CODE, message: 'the server answered with a task', data: task };
  };
}

/** The task a request's rejection carries, when the server answered it with one. */
export function createdTask(error: unknown): ExtensionTask | undefined {
  if (!(error instanceof ProtocolError) || error.code !== TASK_CREATED_CODE) return undefined;
  return parseTask(error.data);
}

export function followExtensionTask(
  send: Send,
  name: string,
  created: ExtensionTask,
  options: FollowOptions,
  answer: AnswerInput,
): Promise<RawResult> {
  const { signal, timeout } = options;
  const requestOptions = signal ? { signal, timeout } : { timeout };
  // Each question is put to the user once, however often polls show it or an update must be resent.
  const answers = new Map<string, Record<string, unknown>>();
  const delivered = new Set<string>();
  const answerQuestions = async (task: ExtensionTask) => {
    const asked = Object.entries(task.inputRequests ?? {}).filter(([key]) => !delivered.has(key));
    if (asked.length === 0) return;
    for (const [key, request] of asked) {
      if (answers.has(key)) continue;
      const response = isPlainObject(request)
        ? await answer(request, signal ?? new AbortController().signal)
        : undefined;
      if (response === undefined)
        throw unanswerable(`tools/call ${name}`, isPlainObject(request) ? String(request.method) : 'input');
      answers.set(key, response);
    }
    const inputResponses = Object.fromEntries(asked.map(([key]) => [key, answers.get(key)]));
    await send(`tasks/update ${name}`, signal, (client) =>
      client.request(
        { method: 'tasks/update', params: { taskId: task.taskId, inputResponses } },
        ANY_RESULT_SCHEMA,
        requestOptions,
      ),
    );
    for (const [key] of asked) delivered.add(key);
  };
  return followTask<ExtensionTask, RawResult>(
    {
      get: async (taskId) => {
        const task = await send(`tasks/get ${name}`, signal, (client) =>
          client.request({ method: 'tasks/get', params: { taskId } }, TASK_SCHEMA, requestOptions),
        );
        if (task.status === 'input_required') await answerQuestions(task);
        return task;
      },
      result: async (task) => outcome(task, name),
      cancel: async (taskId) => {
        await send('tasks/cancel', undefined, (client: Client) =>
          client.request({ method: 'tasks/cancel', params: { taskId } }, ANY_RESULT_SCHEMA, {
            timeout: CANCEL_TIMEOUT_MS,
          }),
        );
      },
    },
    created,
    options,
  );
}

function outcome(task: ExtensionTask, name: string): RawResult {
  if (task.status === 'completed' && task.result) return task.result;
  if (task.status === 'failed') {
    const message = typeof task.error?.message === 'string' ? task.error.message : 'no reason given';
    const code = typeof task.error?.code === 'number' ? { code: task.error.code } : {};
    return fail('server', `tools/call ${name} failed: ${message}`, code);
  }
  if (task.status === 'cancelled') {
    return fail('server', `tools/call ${name} failed: the server cancelled its task${why(task)}`);
  }
  return fail('protocol', `tools/call ${name}: the task completed without a tool result`);
}

function why(task: ExtensionTask): string {
  return task.statusMessage ? ` (${task.statusMessage})` : '';
}

function fail(
  kind: 'server' | 'protocol' | 'unsupported',
  message: string,
  extra: { code?: number } = {},
): never {
  throw new CallError(kind, message, extra);
}

/** A task as the extension's schema defines it (ids, times, status and what each status carries). */
function parseTask(task: unknown): ExtensionTask | undefined {
  if (!isPlainObject(task) || !isDetailedTaskV2(task)) return undefined;
  const value: Record<string, unknown> = task;
  return {
    taskId: task.taskId,
    status: task.status,
    ...(typeof value.statusMessage === 'string' ? { statusMessage: value.statusMessage } : {}),
    ...(typeof value.pollIntervalMs === 'number' ? { pollMs: value.pollIntervalMs } : {}),
    ...(isPlainObject(value.result) ? { result: value.result } : {}),
    ...(isPlainObject(value.error) ? { error: value.error } : {}),
    ...(isPlainObject(value.inputRequests) ? { inputRequests: value.inputRequests } : {}),
  };
}

/** A Standard Schema (what the SDK's request method validates results with), written by hand. */
function standardSchema<T>(parse: (value: unknown) => T | undefined, what: string) {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'pi-mcp-actors',
      validate: (value: unknown) => {
        const parsed = parse(value);
        return parsed === undefined ? { issues: [{ message: `not ${what}` }] } : { value: parsed };
      },
      types: undefined as unknown as { input: unknown; output: T },
    },
  };
}

const TASK_SCHEMA = standardSchema(parseTask, 'a task');
const ANY_RESULT_SCHEMA = standardSchema((value) => (isPlainObject(value) ? value : undefined), 'a result');
