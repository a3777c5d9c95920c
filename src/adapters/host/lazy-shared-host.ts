// The shared host's session side, loaded on first use: a session without `settings.sharedHost` never
// loads the client, the socket code or the protocol.

import type { Connector } from '../../machines/server-types.ts';
import type { HostAddress } from './start-host.ts';

/** Like sharedHostConnector (./shared-connector.ts), whose module is imported at the first connect. */
export function lazySharedHost(
  address: HostAddress,
  inSession: Connector,
  tell?: (text: string) => void,
): (project: string) => Connector {
  let loaded: Promise<(project: string) => Connector> | undefined;
  return (project) => async (definition, options) => {
    loaded ??= import('./shared-connector.ts').then((m) => m.sharedHostConnector(address, inSession, tell));
    return (await loaded)(project)(definition, options);
  };
}
