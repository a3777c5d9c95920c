// A call of a name no catalog holds, while a server waiting for its first sign-in has listed nothing
// yet: the tool is most likely that server's, so the answer is "sign in", not "no longer provided".

import { type Surface, signInReason, signInSentence } from '../auth/sign-in-advice.ts';
import { serverPrefix } from '../catalog/naming.ts';
import type { ToolPrefix } from '../config/types.ts';
import type { ServerContext } from '../machines/server-types.ts';
import { serverErrorText } from '../server-error-text.ts';
import { needsAuthText } from './ensure-connected.ts';

export interface WaitingServer {
  name: string;
  /** The server's tool prefix mode (its own, else the setting). */
  prefix: ToolPrefix;
  /** Why it needs a sign-in, when a try said (a refused refresh token). */
  lastError?: ServerContext['lastError'];
}

export function signInFirst(
  tool: string,
  waiting: WaitingServer[],
  surface: Surface = 'pi',
): { server: string; message: string } | undefined {
  const owner = waiting.find((s) => {
    const prefix = serverPrefix(s.name, s.prefix);
    return prefix === '' || tool.startsWith(`${prefix}__`);
  });
  if (!owner) return undefined;
  return {
    server: owner.name,
    message: `Tool ${tool} is not known yet: MCP server "${owner.name}" lists its tools once you are signed in. ${
      owner.lastError && signInReason(serverErrorText(owner.lastError))
        ? needsAuthText({ name: owner.name, lastError: owner.lastError }, surface)
        : `${signInSentence(owner.name, surface)}, then try again.`
    }`,
  };
}

/** What Pi answers a call of a tool that is registered but not active (or not registered at all). */
export function isPiToolNotFound(text: string, tool: string): boolean {
  return text.trim() === `Tool ${tool} not found`;
}

/**
 * A known MCP tool the model called before loading it: Pi refused it before any extension could run
 * it (other extensions' `tool_call` gates must see every call, so we do not run it behind Pi's back).
 * The tool is loaded for the next request, and the model reads that one call again runs it.
 */
export function notLoadedMessage(tool: string): string {
  return `MCP tool ${tool} was not loaded, so this call did not run. It is loaded now: call ${tool} again with the same arguments.`;
}
