// `pi-mcp-actors inspect`: serves the live statechart inspector on 127.0.0.1 until interrupted, and
// tells the user how to point a Pi session at it.

import { STATECHARTS_DIR, startInspectorServer } from '../inspect/server.ts';

/** `io` is the CLI's (./main.ts CliIo); only its output is used. */
export async function runInspectCommand(
  io: { out(text: string): void },
  signal?: AbortSignal,
): Promise<number> {
  const server = await startInspectorServer({ statechartsDir: STATECHARTS_DIR });
  io.out(`Inspector: ${server.url}`);
  io.out('Start Pi with inspection sent here, e.g.:');
  io.out(`  PI_MCP_INSPECT='${server.wsUrl}' pi`);
  io.out('Press Ctrl-C to stop.');
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
  await server.close();
  return 0;
}
