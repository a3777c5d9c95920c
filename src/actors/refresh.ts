// Re-lists tools, resources (with their templates) or prompts after a `*/list_changed` notification.
// Aborted when the refresh is superseded or the connection is left.

import { fromPromise } from 'xstate';
import type { RefreshInput, RefreshOutput } from '../machines/server-types.ts';

export const refreshLogic = fromPromise<RefreshOutput, RefreshInput>(async ({ input, signal }) => {
  const { connection, list } = input;
  if (list === 'tools') return { list, tools: await connection.listTools(signal) };
  if (list === 'resources') {
    const resources = await connection.listResources(signal);
    // Templates are extras: when only they fail to list, the ones we had stay.
    const resourceTemplates = await connection.listResourceTemplates(signal).catch((error) => {
      if (signal.aborted) throw error;
      return undefined;
    });
    return { list, resources, ...(resourceTemplates ? { resourceTemplates } : {}) };
  }
  return { list, prompts: await connection.listPrompts(signal) };
});
