// Where Pi keeps its agent files (and we our config, cache, sign-ins and log).

import { join, resolve } from 'node:path';
import { expandHome } from './interpolate.ts';

/** PI_CODING_AGENT_DIR (with `~` expanded), else ~/.pi/agent. */
export function agentDirFrom(env: Record<string, string | undefined>, homeDir: string): string {
  const configured = env.PI_CODING_AGENT_DIR?.trim();
  if (configured !== undefined && configured !== '') return resolve(expandHome(configured, homeDir));
  return join(homeDir, '.pi', 'agent');
}
