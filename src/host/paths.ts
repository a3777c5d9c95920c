// Where the shared host lives: a private folder of the agent dir holding its key and, one per build,
// its socket. When the agent dir's path is too long for a socket, the socket goes to a private
// per-user folder that depends on neither TMPDIR nor the terminal, so every terminal finds one host.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { packageFile } from '../package-files.ts';
import { currentUid, privacyProblem } from './private-place.ts';

/** The folder (mode 0700) that holds the host's key, log and (when the path is short enough) socket. */
export function hostDir(agentDir: string): string {
  return join(agentDir, 'mcp-host');
}

/** The secret the host and its sessions prove to each other (./host-key.ts). */
export function hostKeyFile(agentDir: string): string {
  return join(hostDir(agentDir), 'host.key');
}

/** Longest Unix socket path we use (sun_path holds 108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

export interface SocketUser {
  uid: number | undefined;
  env: Record<string, string | undefined>;
}

const thisUser = (): SocketUser => ({ uid: currentUid(), env: process.env });

/** The socket of the host of this build for `agentDir`. */
export function hostSocketPath(agentDir: string, build: string, user: SocketUser = thisUser()): string {
  const name = `host-${build.replace(/[^0-9A-Za-z.+-]/g, '_')}.sock`;
  const inAgentDir = join(hostDir(agentDir), name);
  if (Buffer.byteLength(inAgentDir) <= MAX_SOCKET_PATH) return inAgentDir;
  const hash = createHash('sha256').update(agentDir).digest('hex').slice(0, 16);
  return join(sharedSocketDir(user), `${hash}-${name}`);
}

/**
 * The per-user folder for sockets of long agent dirs: `pi-mcp-actors/` in the user's runtime folder
 * ($XDG_RUNTIME_DIR, or /run/user/<uid>) when it is the user's and private, else
 * /tmp/pi-mcp-actors-<uid> (its owner and mode are checked before use; another user's is refused).
 */
export function sharedSocketDir({ uid, env }: SocketUser): string {
  const runtimeDirs = [env.XDG_RUNTIME_DIR, uid === undefined ? undefined : `/run/user/${uid}`];
  for (const dir of runtimeDirs)
    if (dir && isAbsolute(dir) && privacyProblem(dir, 'folder', uid) === undefined)
      return join(dir, 'pi-mcp-actors');
  return join('/tmp', `pi-mcp-actors-${uid ?? 'user'}`);
}

let version: string | undefined;

/** This package's version (what `host` shows; the build identity, ./build-identity.ts, tells builds apart). */
export function packageVersion(): string {
  if (version === undefined) {
    try {
      version = (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string })
        .version;
    } catch {
      version = 'unpackaged';
    }
  }
  return version;
}
