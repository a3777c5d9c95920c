// The health check of a live connection: one MCP ping, aborted when the machine gives up on it
// (its timeout is the machine's `healthTimeout` delay) or leaves `connected`.

import { fromPromise } from 'xstate';
import type { PingInput } from '../machines/server-types.ts';

export const pingLogic = fromPromise<void, PingInput>(async ({ input, signal }) => {
  await input.connection.ping?.(signal);
});
