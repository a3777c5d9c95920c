// The session's side of the shared host: a Connector whose connections are attachments to the host's
// instance of the server, so the session's own server actor mirrors it (connecting, connected,
// needs-auth, closed…) and nothing above the adapter changes. Servers set to `share: "session"`, and
// those whose connect depends on this session's process (a trace file, `!command` values, a request
// headers command), run in the session as before; so does every server when no host can be used.

import { homedir } from 'node:os';
import { shareOf } from '../../config/share-defaults.ts';
import type { ServerDefinition } from '../../config/types.ts';
import { endOrphansIfGone } from '../../host/orphans.ts';
import type { InstanceRequest, ShareScope } from '../../host/protocol.ts';
import type { ConnectOptions, Connector } from '../../machines/server-types.ts';
import type { ConnectionEvent } from '../../ports/connection.ts';
import type { InstanceState } from '../../ports/host.ts';
import type { LogLevel } from '../../ports/mcp.ts';
import { ConnectError } from '../../ports/mcp.ts';
import { type HostClient, HostUnavailable } from './host-client.ts';
import { HostConnection } from './host-connection.ts';
import { HOST_RETRY_AFTER_MS } from './link-deadlines.ts';
import { attachToHost, type HostAddress } from './start-host.ts';

export { shareOf };

/**
 * What the SDK copies from the session's environment when `inheritEnv` is false (its POSIX default set):
 * the session's values, not the host's, so a session with another PATH gets its own instance.
 */
const SDK_DEFAULT_VARIABLES = new Set(['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER']);

/**
 * Per-shell and per-terminal-window variables: they differ between two terminals of one user but say
 * nothing about what a server does, so they are neither passed to a shared server nor part of its key.
 */
const SHELL_VARIABLES = new Set([
  '_',
  'PWD',
  'OLDPWD',
  'SHLVL',
  'WINDOWID',
  'TERM_SESSION_ID',
  'ITERM_SESSION_ID',
  'TMUX_PANE',
  'KITTY_WINDOW_ID',
  'WEZTERM_PANE',
  'ALACRITTY_WINDOW_ID',
  'WT_SESSION',
  'STY',
]);

/**
 * One runtime's line to the host: `connectorFor(project)` is the Connector for that project folder.
 * When the host cannot be used, servers run in the session, `tell` hears why once, and the host is not
 * tried again for HOST_RETRY_AFTER_MS (each server would wait for it again).
 */
export function sharedHostConnector(
  address: HostAddress,
  inSession: Connector,
  tell?: (text: string) => void,
): (project: string) => Connector {
  let client: Promise<HostClient> | undefined;
  let unusable: { until: number; error: HostUnavailable } | undefined;
  let told = false;
  const giveUp = (error: HostUnavailable) => {
    if (unusable?.error !== error) unusable = { until: Date.now() + HOST_RETRY_AFTER_MS, error };
    if (told || error.why === 'no-agent-dir') return;
    told = true;
    tell?.(`The shared MCP host was not used: ${error.message}. MCP servers run in this session instead.`);
  };
  /** The one line of this runtime to the host: opened on first use, again after it closed. */
  const current = async (): Promise<HostClient> => {
    if (unusable && Date.now() < unusable.until) throw unusable.error;
    const pending = client ?? attachToHost(address).then(endsOrphansWhenGone);
    client = pending;
    try {
      const open = await pending;
      if (open.open) return open;
    } catch (error) {
      if (client === pending) client = undefined;
      throw error;
    }
    if (client === pending) client = undefined;
    return current();
  };
  const endsOrphansWhenGone = (opened: HostClient): HostClient => {
    opened.onClosed(() => endOrphansIfGone(address.agentDir, opened.hostPid));
    return opened;
  };
  return (project) => async (definition, options) => {
    const share = shareOf(definition);
    if (share === 'session') return inSession(definition, options);
    const request = instanceRequest(definition, share, project, options);
    let connection: HostConnection | undefined;
    let hostPid = 0;
    const tellState = (state: InstanceState | undefined) =>
      options.onHostState?.(state ? { ...state, hostPid } : undefined);
    // A state pushed between the attach's answer and the connection's making is kept for it.
    let latest: InstanceState | undefined;
    // The host's copy answered initialize and lists its tools: this session's actor says so too.
    let listing = false;
    const listed = () => {
      if (listing) return;
      listing = true;
      options.onListing?.();
    };
    const given = options.host;
    const handlers = {
      host: given?.log
        ? {
            ...given,
            log: (level: LogLevel, text: string) => {
              connection?.logged(level, text);
              given.log?.(level, text);
            },
          }
        : given,
      onEvent: (event: ConnectionEvent) => connection?.receive(event),
      // Every push, from the attach on, reaches the session's server actor (its snapshot's `hostCopy`).
      onState: (state: InstanceState) => {
        latest = state;
        if (!connection && state.tags.includes('listing')) listed();
        if (connection) connection.receiveState(state);
        else tellState(state);
      },
    };
    // Twice: the line may close between being handed out and the attach (its last server detached).
    for (let attempt = 1; ; attempt++) {
      let host: HostClient;
      try {
        host = await current();
      } catch (error) {
        if (!(error instanceof HostUnavailable)) throw error;
        giveUp(error);
        return inSession(definition, options);
      }
      hostPid = host.hostPid;
      try {
        const attached = await host.attach(request, handlers, options.signal);
        // The server's output so far, as if this session had started it (`debug: true` logs it).
        if (attached.stderrTail !== '')
          for (const line of attached.stderrTail.split('\n')) options.onStderr?.(line);
        listed();
        connection = new HostConnection(host, attached, definition, tellState);
        connection.receiveState(latest ?? attached.state);
        return connection;
      } catch (error) {
        tellState(undefined);
        if (options.signal.aborted)
          throw new ConnectError('aborted', `Connecting to "${definition.name}" was aborted`);
        if (!(error instanceof HostUnavailable)) throw error;
        if (attempt >= 2) throw new ConnectError('network', `Server "${definition.name}": ${error.message}`);
      }
    }
  };
}

/** What the session asks the host to run: the definition as it would run here, env values included. */
export function instanceRequest(
  definition: ServerDefinition,
  share: Exclude<ShareScope, 'session'>,
  project: string,
  options: Pick<ConnectOptions, 'host' | 'protocolErasFile'>,
): InstanceRequest {
  let runs = definition;
  if (definition.transport === 'stdio') {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (value === undefined) continue;
      if (definition.inheritEnv ? !SHELL_VARIABLES.has(key) : SDK_DEFAULT_VARIABLES.has(key))
        env[key] = value;
    }
    Object.assign(env, definition.env);
    runs = {
      ...definition,
      inheritEnv: false,
      env,
      // The folder it would have started in here: the project's, or for `user` the home folder (not
      // as `cwd`: a user server's npx package is still resolved outside the project).
      ...(definition.cwd ? {} : { runsIn: share === 'project' ? project : homedir() }),
    };
  }
  const host = options.host;
  return {
    definition: runs,
    share,
    ...(share === 'project' ? { project } : {}),
    ...(host?.roots ? { roots: host.roots() } : {}),
    answers: {
      roots: host?.roots !== undefined,
      elicit: host?.elicit !== undefined,
      sample: host?.sample !== undefined,
    },
    ...(options.protocolErasFile ? { protocolErasFile: options.protocolErasFile } : {}),
  };
}
