// The part of the Pi adapter that loads after the first model request is on its way (or at first use):
// the session runtime (machines, actors, executor, search) with Pi's host port, and the npx resolver.
// bridge.ts imports this module lazily; keep Pi-startup work out of here and runtime work out of there.

import { createRuntime, type Runtime, type RuntimeOptions } from '../../actors/session-actor.ts';
import { tokenStoreFor } from '../../auth/default-store.ts';
import type { AuthPort } from '../../auth/port.ts';
import { searchIndexOf } from '../../catalog/search.ts';
import { withNpxResolution } from '../mcp/npx-connector.ts';
import { defaultNpxCacheFile, defaultNpxPackageRoot } from '../mcp/npx-resolver.ts';
import { defaultProtocolErasFile } from '../mcp/protocol-eras.ts';
import { createToolApprover } from './approval.ts';
import type { PiContext } from './pi-types.ts';
import { piServerRequests } from './server-requests.ts';

export { runMcpAuthCommand, runMcpCommand } from '../../commands/mcp-command.ts';
export { runAuthCommand } from './auth-command.ts';
export { callWithAutoAuth, searchWithAutoAuth } from './auto-auth.ts';

export interface PiRuntimeOptions extends Omit<RuntimeOptions, 'auth' | 'serverRequests' | 'askApproval'> {
  agentDir: string;
  /** Where a server's questions and approvals go: the Pi context of the latest event, tool call or command. */
  currentContext(): PiContext | undefined;
}

export interface PiRuntime {
  runtime: Runtime;
  /** A new Pi session: sampling approvals are asked for again. */
  newSession(): void;
}

/** The session runtime with Pi's sign-ins (agentDir's token store), dialogs and approvals. */
export function createPiRuntime(options: PiRuntimeOptions): PiRuntime {
  const { agentDir, currentContext, connector, ...rest } = options;
  const tokenStore = tokenStoreFor(agentDir);
  const protocolErasFile = defaultProtocolErasFile(agentDir);
  // The sign-in flow loads the MCP SDK: only when someone signs in.
  const auth: AuthPort = {
    store: tokenStore,
    signIn: async (def, io) => (await import('../mcp/auth/sign-in.ts')).signInServer(def, tokenStore, io),
    signOut: async (def) => (await import('../mcp/auth/sign-in.ts')).signOutServer(def, tokenStore),
  };
  const serverRequests = piServerRequests(currentContext, rest.secrets);
  const runtime = createRuntime({
    ...rest,
    agentDir,
    auth,
    connector: withNpxResolution(
      (def, connectOptions) => connector(def, { ...connectOptions, tokenStore, protocolErasFile }),
      defaultNpxCacheFile(agentDir),
      defaultNpxPackageRoot(agentDir),
    ),
    serverRequests: serverRequests.forServer,
    askApproval: createToolApprover(currentContext),
  });
  return { runtime, newSession: serverRequests.newSession };
}

/** What the first ToolSearch would otherwise build while the model waits: the search index. */
export function warmUp(runtime: Runtime): void {
  searchIndexOf(runtime.catalog());
}
