// Runs `npx <pkg>` servers straight from npm's _npx cache when the resolver is sure, which saves the
// ~90 MB npm parent process per server. Anything uncertain, or a direct start that fails, falls back
// to the configured npx command.
//
// A user's server resolves its package outside the project (issue 23): npx would otherwise run the
// project's node_modules/.bin copy and read the project's .npmrc. Without a `cwd` of its own, package
// resolution happens in `packageRoot` (an empty folder of ours; `npx --prefix <it>`), while the server
// itself still runs in Pi's folder, the project. A server defined by the project (allowed by the user)
// or given a `cwd` resolves where it points.

import { mkdirSync } from 'node:fs';
import type { Connector } from '../../machines/server-types.ts';
import { ConnectError } from '../../ports/mcp.ts';
import { isNpxCommand, resolveNpx } from './npx-resolver.ts';

export function withNpxResolution(connect: Connector, cacheFile: string, packageRoot?: string): Connector {
  return async (original, options) => {
    if (original.transport !== 'stdio' || !original.command || !isNpxCommand(original.command)) {
      return connect(original, options);
    }
    const outside = packageRoot !== undefined && !original.fromProject && !original.cwd;
    if (outside) mkdirSync(packageRoot, { recursive: true });
    const definition = outside
      ? { ...original, args: ['--prefix', packageRoot, ...original.args] }
      : original;
    const cwd = outside ? packageRoot : original.cwd;
    const resolved = resolveNpx(original.command, original.args, {
      cacheFile,
      env: { ...process.env, ...original.env },
      ...(cwd ? { cwd } : {}),
    });
    if (!resolved) return connect(definition, options);
    try {
      return await connect({ ...original, command: resolved.command, args: resolved.args }, options);
    } catch (error) {
      const directFailed =
        error instanceof ConnectError && (error.kind === 'spawn' || error.kind === 'exited');
      if (!directFailed || options.signal.aborted) throw error;
      return connect(definition, options);
    }
  };
}
