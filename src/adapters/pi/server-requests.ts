// How Pi answers what a server asks: elicitation through Pi's dialogs, roots from the session's
// working directory. Sampling joins here once it is built on Pi's model.

import { pathToFileURL } from 'node:url';
import type { HostRequests } from '../mcp/connection-port.ts';
import type { PiContext } from './bridge.ts';
import { createElicitor } from './elicitation.ts';

export function piServerRequests(
  currentContext: () => PiContext | undefined,
): (server: string) => HostRequests {
  const elicit = createElicitor(currentContext);
  return (server) => ({
    elicit: (request, signal) => elicit(server, request, signal),
    roots: () => {
      const cwd = currentContext()?.cwd ?? process.cwd();
      return [{ uri: pathToFileURL(cwd).href, name: 'working directory' }];
    },
  });
}

export function isPiContext(value: unknown): value is PiContext {
  return typeof value === 'object' && value !== null && 'ui' in value && 'hasUI' in value;
}
