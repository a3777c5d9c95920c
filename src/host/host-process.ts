// `pi-mcp-actors host serve`: the shared host as its own process (started detached by the first
// session that needs it, src/adapters/host/start-host.ts). It runs servers with the same adapter
// chain as a session (npx resolution, the agent dir's sign-ins and protocol eras), and exits when
// another host already owns the socket, on SIGTERM/SIGINT, when idle, or once its socket file is
// removed or replaced (./own-socket.ts).

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { withNpxResolution } from '../adapters/mcp/npx-connector.ts';
import { defaultNpxCacheFile, defaultNpxPackageRoot } from '../adapters/mcp/npx-resolver.ts';
import { observeProcessGroups } from '../adapters/mcp/process-group.ts';
import { defaultProtocolErasFile, fileProtocolEraStore } from '../adapters/mcp/protocol-eras.ts';
import { tokenStoreFor } from '../auth/default-store.ts';
import { agentDirFrom } from '../config/agent-dir.ts';
import { createLogger, type Logger } from '../logger.ts';
import type { Connector } from '../machines/server-types.ts';
import { SecretValues } from '../redact/index.ts';
import { hostBirthLine } from './birth-line.ts';
import { buildIdentity } from './build-identity.ts';
import { prepareHostPlace } from './host-place.ts';
import { HOST_IDLE_MS, startHost } from './host-server.ts';
import { endOrphans } from './orphans.ts';
import { type SocketWatch, watchOwnSocket } from './own-socket.ts';
import { hostDir, packageVersion } from './paths.ts';
import { ProcessRecords, recordsDir } from './process-records.ts';
import { tellStarter } from './ready-signal.ts';
import { makeSnapshot } from './snapshot-build.ts';

/** The host's log, beside its socket. */
export const HOST_LOG_FILE = 'host.log';

/**
 * Resolves when the host has stopped; at once (with false) when another host owns the socket.
 * `from.snapshot`: the startup snapshot it was deserialized from (./snapshot-main.ts).
 */
export async function serveHost(
  env: Record<string, string | undefined> = process.env,
  from: { snapshot?: string } = {},
): Promise<boolean> {
  const agentDir = agentDirFrom(env, homedir());
  // A host started for an agent dir that is gone (a late starter of a finished test) has nobody to serve.
  if (!existsSync(agentDir)) return false;
  const build = buildIdentity(env);
  // A folder, key or socket that is not the user's alone: no host serves there (the session refuses it too).
  let place: ReturnType<typeof prepareHostPlace>;
  try {
    place = prepareHostPlace(agentDir, build);
  } catch (error) {
    process.stderr.write(`pi-mcp-actors host: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return false;
  }
  const { socketPath, key, keyFile } = place;
  const idle = Number(env.PI_MCP_ACTORS_HOST_IDLE_MS);
  // The host process's known secrets: the servers it runs for every session, the tokens its sign-in
  // store reads, for its log.
  const secrets = new SecretValues();
  const tokenStore = tokenStoreFor(agentDir);
  tokenStore.shareSecrets(secrets);
  // The MCP SDK (most of the host's code) loads once the host listens: the session that started it
  // connects, greets and attaches meanwhile, so its first server waits only for what is left of it.
  let mcp: Promise<Connector> | undefined;
  const loadMcp = () =>
    (mcp ??= import('../adapters/mcp/index.ts').then(({ createMcpConnector }) =>
      createMcpConnector({
        tokenStore,
        protocolEras: fileProtocolEraStore(defaultProtocolErasFile(agentDir)),
      }),
    ));
  const connector = withNpxResolution(
    async (definition, options) => (await loadMcp())(definition, options),
    defaultNpxCacheFile(agentDir),
    defaultNpxPackageRoot(agentDir),
  );
  let exited!: () => void;
  const stopped = new Promise<void>((resolve) => {
    exited = resolve;
  });
  let socket: SocketWatch | undefined;
  // Once its socket file is gone (its folder being deleted), the host writes no more log lines: one
  // would bring the folder back under a `rm -rf` still running.
  let quiet = false;
  const logger = quietened(
    createLogger({ file: join(hostDir(agentDir), HOST_LOG_FILE), known: secrets }),
    () => quiet,
  );
  // Every server group it spawns is on record from its spawn on, so a host killed with SIGKILL leaves
  // none running for long: the next host (or a session of this one) ends them (./orphans.ts).
  const records = new ProcessRecords(recordsDir(agentDir));
  observeProcessGroups(records);
  const host = await startHost({
    socketPath,
    version: packageVersion(),
    build,
    key,
    connector,
    idleMs: Number.isFinite(idle) && idle > 0 ? idle : HOST_IDLE_MS,
    onExit: () => exited(),
    // Its own socket's removal is not news to the watch below.
    onClosing: () => socket?.stop(),
    secrets,
    tokenStore,
    logger,
    birthLine: hostBirthLine(env),
  });
  if (host.outcome === 'taken') {
    observeProcessGroups(undefined);
    return false;
  }
  tellStarter(env);
  loadMcp().catch(() => {});
  if (from.snapshot !== undefined) logger.info('started from the startup snapshot', { blob: from.snapshot });
  void endOrphans(agentDir).then(
    (ended) => {
      if (ended.hosts.length === 0) return;
      const what = ended.groups.length > 0 ? 'ended the servers of' : 'cleared the record of';
      logger.info(`${what} a host that had died`, {
        hosts: ended.hosts,
        groups: ended.groups.map((g) => `${g.command} (pid ${g.pgid}${g.killed ? ', SIGKILL' : ''})`),
      });
    },
    (error) => logger.warn('could not end the servers of a dead host', { error: String(error) }),
  );
  // Its key replaced or removed (the agent dir deleted, wherever the socket lives): no session can prove itself to it.
  socket = watchOwnSocket(socketPath, agentDir, keyFile, () => {
    quiet = !existsSync(socketPath);
    // Its folder is going: no record is written into it any more.
    if (quiet) void records.remove();
    logger.info('the socket was replaced: the host stops', { socket: socketPath });
    void host.close();
  });
  process.title = 'pi-mcp-actors-host';
  const stop = () => void host.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // A session's terminal closing must not end the host it started.
  process.on('SIGHUP', () => {});
  await stopped;
  socket.stop();
  // Its servers are closed: nothing of this host is left to end.
  await records.remove();
  // Started without the startup snapshot: the next host's is made now that nobody is served (made beside
  // a first call, it cost that call ~45 ms on two cores, even at the lowest priority).
  if (from.snapshot === undefined && !quiet && existsSync(agentDir))
    await makeSnapshot(agentDir, build, logger);
  // Node unlinks a Unix socket's path when it closes the server at a natural exit, whoever's file is
  // there by then: a host whose socket file is no longer there as it listened (removed, or taken over
  // by another host) leaves without that clean-up.
  if (!socket.ours()) process.exit(0);
  return true;
}

/** A logger that writes nothing while `quiet()` says so (its children too). */
function quietened(logger: Logger, quiet: () => boolean): Logger {
  const gate =
    (write: (msg: string, fields?: Record<string, unknown>) => void) =>
    (msg: string, fields?: Record<string, unknown>) => {
      if (!quiet()) write(msg, fields);
    };
  return {
    debug: gate(logger.debug),
    info: gate(logger.info),
    warn: gate(logger.warn),
    error: gate(logger.error),
    child: (scope) => quietened(logger.child(scope), quiet),
  };
}
