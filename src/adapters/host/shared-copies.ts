// Which of a session's servers the shared host already runs (warm before this session's first use),
// asked once when /mcp or its panel opens. Lazy: no host is started to answer (none running: nothing
// is warm), and the question is a status probe, which neither holds the host nor restarts its idle
// time. A copy is this session's when its instance key is the one this session's connect would ask for.

import type { ServerDefinition } from '../../config/types.ts';
import { instanceKey } from '../../host/instance-key.ts';
import type { HostStatus } from '../../host/protocol.ts';
import type { SharedCopy } from '../../ports/host.ts';
import type { HostRequests } from '../../ports/mcp.ts';
import type { HostClient } from './host-client.ts';
import { instanceRequest, shareOf } from './shared-connector.ts';
import { openHost } from './start-host.ts';

/** The label a probe gives itself (`pi-mcp-actors host` lists no probe among the sessions). */
export const WARM_PROBE_LABEL = 'pi-mcp-actors warm check';

/** How long the panel waits for the host's answer before it shows nothing warm. */
const ANSWER_MS = 2_000;

export interface SessionServer {
  definition: ServerDefinition;
  /** The requests this session answers for it (they are part of the key). */
  host: HostRequests;
}

export async function sharedCopiesOf(
  agentDir: string,
  project: string,
  servers: SessionServer[],
): Promise<Record<string, SharedCopy>> {
  const names = new Map<string, string>();
  for (const { definition, host } of servers) {
    const share = shareOf(definition);
    if (share === 'session') continue;
    names.set(instanceKey(instanceRequest(definition, share, project, { host })), definition.name);
  }
  if (names.size === 0) return {};
  const status = await hostStatus(agentDir);
  const copies: Record<string, SharedCopy> = {};
  for (const instance of status?.instances ?? []) {
    const name = names.get(instance.key);
    if (name === undefined || !status) continue;
    copies[name] = {
      state: instance.state,
      ...(instance.since === undefined ? {} : { since: instance.since }),
      hostPid: status.pid,
    };
  }
  return copies;
}

/** The running host's status, or undefined (none runs, another version, no answer in time). */
async function hostStatus(agentDir: string): Promise<HostStatus | undefined> {
  let client: HostClient;
  try {
    client = await openHost({ agentDir, label: WARM_PROBE_LABEL });
  } catch {
    return undefined;
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      client.status(),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ANSWER_MS);
        timer.unref();
      }),
    ]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    client.close();
  }
}
