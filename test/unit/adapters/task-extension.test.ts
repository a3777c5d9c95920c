// What a 2026-07-28 server's task answer must be to be followed: the Tasks extension's published wire
// schema (@modelcontextprotocol/ext-tasks core/v2), not just any object with an id and a status.

import { ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createdTask, TASK_CREATED_CODE, TASKS_EXTENSION } from '../../../src/adapters/mcp/task-extension.ts';

const now = new Date().toISOString();
const working = { taskId: 't-1', status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: 60_000 };
const answered = (data: unknown) =>
  new ProtocolError(TASK_CREATED_CODE, 'the server answered with a task', data);

describe('the Tasks extension task answer', () => {
  it('declares the extension by its published id', () => {
    expect(TASKS_EXTENSION).toBe('io.modelcontextprotocol/tasks');
  });

  it('follows a task the extension schema accepts', () => {
    expect(createdTask(answered({ ...working, pollIntervalMs: 250, statusMessage: 'step 1' }))).toEqual({
      taskId: 't-1',
      status: 'working',
      statusMessage: 'step 1',
      pollMs: 250,
    });
  });

  it('refuses an answer the schema does not: no times, an unknown status, a completed task without result', () => {
    expect(createdTask(answered({ taskId: 't-1', status: 'working' }))).toBeUndefined();
    expect(createdTask(answered({ ...working, status: 'sleeping' }))).toBeUndefined();
    expect(createdTask(answered({ ...working, status: 'completed' }))).toBeUndefined();
    expect(
      createdTask(answered({ ...working, status: 'failed', error: { code: -1, message: 'x' } })),
    ).toMatchObject({
      status: 'failed',
      error: { message: 'x' },
    });
  });
});
