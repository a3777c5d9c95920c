// Re-lists tools, resources or prompts after a `*/list_changed` notification. Aborted when the refresh is
// superseded or the connection is left.

import { fromPromise } from 'xstate';
import type { RefreshInput, RefreshOutput } from '../machines/server.machine.ts';

export const refreshLogic = fromPromise<RefreshOutput, RefreshInput>(async ({ input, signal }) => {
  const { connection, list } = input;
  if (list === 'tools') return { list, tools: await connection.listTools(signal) };
  if (list === 'resources') return { list, resources: await connection.listResources(signal) };
  return { list, prompts: await connection.listPrompts(signal) };
});
