// A call of a name no catalog holds, while a server waiting for its first sign-in has listed nothing
// yet: the tool is most likely that server's, so the answer is "sign in", not "no longer provided".

import { type Surface, signInSentence } from '../auth/sign-in-advice.ts';
import { serverPrefix } from '../catalog/naming.ts';
import type { ToolPrefix } from '../config/types.ts';

export interface WaitingServer {
  name: string;
  /** The server's tool prefix mode (its own, else the setting). */
  prefix: ToolPrefix;
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
    message: `Tool ${tool} is not known yet: MCP server "${owner.name}" lists its tools once you are signed in. ${signInSentence(owner.name, surface)}, then try again.`,
  };
}
