// Watches a live connection: forwards transport close, list_changed and stderr to the server actor.
// Its cleanup closes the connection (killing a stdio server's process group). Cleanup runs exactly
// once, whenever `connected` is left and when the server actor is stopped, so this is the one place
// a connection gets closed.

import { fromCallback } from 'xstate';
import type { WatchEvent, WatchInput } from '../machines/server-types.ts';
import type { ConnectionEvent } from '../ports/connection.ts';

function toWatchEvent(event: ConnectionEvent): WatchEvent {
  switch (event.type) {
    case 'closed':
      return {
        type: 'TRANSPORT_CLOSED',
        ...(event.error === undefined ? {} : { error: event.error }),
        ...(event.farEnd === undefined ? {} : { farEnd: event.farEnd }),
      };
    case 'tools-changed':
      return { type: 'TOOLS_CHANGED' };
    case 'resources-changed':
      return { type: 'RESOURCES_CHANGED' };
    case 'prompts-changed':
      return { type: 'PROMPTS_CHANGED' };
    case 'stderr':
      return { type: 'STDERR', line: event.line };
  }
}

export const watchLogic = fromCallback<WatchEvent, WatchInput>(({ input, sendBack }) => {
  const { connection } = input;
  const unsubscribe = connection.onEvent((event) => sendBack(toWatchEvent(event)));
  return () => {
    unsubscribe();
    connection.close().catch(() => undefined);
  };
});
