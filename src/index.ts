// Pi entry point: builds the adapters and starts the root actor; everything else lives behind them.

import type { Connector } from './adapters/mcp/connection-port.ts';
import { bridgePi, type PiHost } from './adapters/pi/bridge.ts';

// The MCP SDK loads on the first connect, not with Pi: a warm cache starts no server and needs none.
// One shared import: concurrent first connects must not see a half-evaluated module (jiti loads it).
let mcpAdapter: Promise<typeof import('./adapters/mcp/index.ts')> | undefined;
const connectMcp: Connector = async (definition, options) => {
  mcpAdapter ??= import('./adapters/mcp/index.ts');
  return (await mcpAdapter).connectMcp(definition, options);
};

export default function piMcpActors(pi: PiHost): void {
  bridgePi(pi, { connector: connectMcp });
}
