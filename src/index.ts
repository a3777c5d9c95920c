// Pi entry point: builds the adapters and starts the root actor; everything else lives behind them.

import { connectMcp } from './adapters/mcp.ts';
import { bridgePi, type PiHost } from './adapters/pi.ts';

export default function piMcpActors(pi: PiHost): void {
  bridgePi(pi, { connector: connectMcp });
}
