// Closes a connection in the server machine's `closing` state and resolves once it is gone (a stdio
// server's process group ended, an HTTP session terminated). The watcher's cleanup asks for the same
// close; a connection closes once, so both wait for the one close.

import { fromPromise } from 'xstate';
import type { CloseInput } from '../machines/server-types.ts';

export const closeLogic = fromPromise<void, CloseInput>(({ input }) => input.connection.close());
