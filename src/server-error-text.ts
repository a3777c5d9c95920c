// The one wording of a server's problems, from what the server machine stores (`{ kind, detail }`)
// and what the connection adapter says of a start-up that timed out. /mcp, the status bar, the CLI,
// tool results and ToolSearch all read a server's last error through here.

import { formatDuration } from './duration.ts';
import type { ServerError } from './ports/server-state.ts';

/** The last error in words ('' when there is none). */
export function serverErrorText(error: Pick<ServerError, 'detail'> | undefined): string {
  if (error === undefined) return '';
  const { detail } = error;
  switch (detail.cause) {
    case 'connect':
      return detail.message;
    case 'startupTimeout':
      return startupTimeoutText(detail.ms);
    case 'connectionLost':
      return detail.reason ? `connection lost: ${detail.reason}` : 'connection lost';
    case 'healthCheckFailed':
      return `connection lost: the health check failed (${detail.message})`;
    case 'healthCheckTimeout':
      return `connection lost: no answer to a health check within ${formatDuration(detail.ms)}`;
    case 'refreshFailed':
      return `refreshing the ${detail.list} list failed: ${detail.message}`;
  }
}

/** A server that did not finish starting (initialize and the first listings) in its start-up time. */
export function startupTimeoutText(ms: number): string {
  return `did not finish starting within ${formatDuration(ms)}`;
}
