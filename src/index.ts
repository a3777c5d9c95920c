// Pi entry point: builds the adapters and starts the root actor; everything else lives behind them.

import { bridgePi } from './adapters/pi/bridge.ts';
import type { PiHost } from './adapters/pi/pi-types.ts';
import type { Connector } from './machines/server-types.ts';

// The MCP SDK loads in the background once the session runtime has started, when a server runs in the
// session (or on the first connect), never on Pi's way to the first model request. One shared import:
// concurrent first connects must not see a half-evaluated module (jiti loads it).
let mcpAdapter: Promise<typeof import('./adapters/mcp/index.ts')> | undefined;
const loadMcpAdapter = () => (mcpAdapter ??= import('./adapters/mcp/index.ts'));
const connectMcp: Connector = async (definition, options) =>
  (await loadMcpAdapter()).connectMcp(definition, options);

export default function piMcpActors(pi: PiHost): void {
  bridgePi(pi, { connector: connectMcp, preloadConnector: loadMcpAdapter });
}
