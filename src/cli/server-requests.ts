// How the CLI answers what a server asks, declaring the same capabilities as Pi (so a server offers
// it the same tools): forms and links on the terminal when there is one, else declined with the
// reason; sampling declined (the CLI has no model); the working directory as the root.

import { pathToFileURL } from 'node:url';
import { HostRefusal, type HostRequests } from '../ports/mcp.ts';
import type { AskApproval } from '../tools/approval.ts';
import { elicitWithDialogs, type FormDialogs } from '../tools/elicit-dialogs.ts';
import { wordsFor } from '../tools/surface-words.ts';

export function cliServerRequests(
  cwd: string,
  dialogs: FormDialogs | undefined,
): (server: string) => HostRequests {
  let queue: Promise<unknown> = Promise.resolve();
  return (server) => ({
    elicit: async (request, signal) => {
      if (!dialogs) {
        throw new HostRefusal(wordsFor('cli').questionDeclined(request.message, wordsFor('cli').noOneToAsk));
      }
      // One question on the terminal at a time.
      const run = queue.then(() => elicitWithDialogs(dialogs, server, request, signal));
      queue = run.catch(() => undefined);
      return run;
    },
    sample: async () => {
      throw new HostRefusal(
        'Declined: the pi-mcp-actors CLI has no model to sample with; call this tool from Pi, where the server can use Pi’s model.',
      );
    },
    roots: () => [{ uri: pathToFileURL(cwd).href, name: 'working directory' }],
  });
}

const ONCE = 'Allow once';
const DENY = 'Deny';

/** `approveTools` on the terminal: one call at a time, nothing remembered (each CLI run is one call). */
export function cliApprover(dialogs: FormDialogs | undefined): AskApproval | undefined {
  if (!dialogs) return undefined;
  return async (request, signal) => {
    const choice = await dialogs.select(
      `Run ${request.name} (MCP server "${request.server}") with ${request.preview}?`,
      [ONCE, DENY],
      signal ? { signal } : {},
    );
    return choice === ONCE ? 'once' : 'deny';
  };
}
