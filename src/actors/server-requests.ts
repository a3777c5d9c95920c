// Which of the host's answers a server may use, by the settings: `sampling: false` and
// `elicitation: false` leave the capability undeclared (as pi-mcp-adapter does), so servers never ask.

import type { HostRequests } from '../adapters/mcp/connection-port.ts';
import type { Settings } from '../config/types.ts';

export function allowedRequests(host: HostRequests, settings: Settings): HostRequests {
  const { sample, elicit, ...rest } = host;
  return {
    ...rest,
    ...(sample && settings.sampling ? { sample } : {}),
    ...(elicit && settings.elicitation ? { elicit } : {}),
  };
}
