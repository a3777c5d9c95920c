// Runs `npx <pkg>` servers straight from npm's _npx cache when the resolver is sure, which saves the
// ~90 MB npm parent process per server. Anything uncertain, or a direct start that fails, falls back
// to the configured npx command.

import { ConnectError, type Connector } from './connection-port.ts';
import { isNpxCommand, resolveNpx } from './npx-resolver.ts';

export function withNpxResolution(connect: Connector, cacheFile: string): Connector {
  return async (definition, options) => {
    if (definition.transport !== 'stdio' || !definition.command || !isNpxCommand(definition.command)) {
      return connect(definition, options);
    }
    const resolved = resolveNpx(definition.command, definition.args, {
      cacheFile,
      env: { ...process.env, ...definition.env },
      ...(definition.cwd ? { cwd: definition.cwd } : {}),
    });
    if (!resolved) return connect(definition, options);
    try {
      return await connect({ ...definition, command: resolved.command, args: resolved.args }, options);
    } catch (error) {
      const directFailed =
        error instanceof ConnectError && (error.kind === 'spawn' || error.kind === 'exited');
      if (!directFailed || options.signal.aborted) throw error;
      return connect(definition, options);
    }
  };
}
