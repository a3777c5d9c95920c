// The part of the Pi adapter that loads after the first model request is on its way (or at first use):
// the session runtime (machines, actors, executor, search) with Pi's host port, and the npx resolver.
// bridge.ts imports this module lazily; keep Pi-startup work out of here and runtime work out of there.

import { createRuntime, type Runtime, type RuntimeOptions } from '../../actors/session-actor.ts';
import { searchIndexOf } from '../../catalog/search.ts';
import { withNpxResolution } from '../mcp/npx-connector.ts';
import { defaultNpxCacheFile } from '../mcp/npx-resolver.ts';

export { runMcpAuthCommand, runMcpCommand } from '../../commands/mcp-command.ts';
export { runAuthCommand } from './auth-command.ts';
export { callWithAutoAuth, searchWithAutoAuth } from './auto-auth.ts';

export function createPiRuntime(options: RuntimeOptions & { agentDir: string }): Runtime {
  const { agentDir, ...rest } = options;
  return createRuntime({
    ...rest,
    connector: withNpxResolution(options.connector, defaultNpxCacheFile(agentDir)),
  });
}

/** What the first ToolSearch would otherwise build while the model waits: the search index. */
export function warmUp(runtime: Runtime): void {
  searchIndexOf(runtime.catalog());
}
