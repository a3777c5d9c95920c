// Re-lists tools or resources after a `*/list_changed` notification. Aborted when the refresh is
// superseded or the connection is left.

import { fromPromise } from 'xstate';
import type { RefreshInput, RefreshOutput } from '../machines/server.machine.ts';

export const refreshLogic = fromPromise<RefreshOutput, RefreshInput>(async ({ input, signal }) => {
  const { connection, list } = input;
  return list === 'tools'
    ? { list, tools: await connection.listTools(signal) }
    : { list, resources: await connection.listResources(signal) };
});
