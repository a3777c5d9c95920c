// Everything the host and a session check before they use the host's socket: the host folder of the
// agent dir (made private if missing, refused if not private), the key in it, the socket's folder
// elsewhere when the path is long, and the socket file itself. Both sides call it: the session before
// it connects, the host before it listens.

import { dirname } from 'node:path';
import { hostKey } from './host-key.ts';
import { hostDir, hostKeyFile, hostSocketPath } from './paths.ts';
import { checkSocket, ensurePrivateFolder } from './private-place.ts';

export interface HostPlace {
  socketPath: string;
  keyFile: string;
  key: Buffer;
}

/** Throws HostPlaceError (./private-place.ts) when the place cannot be made or is not the user's alone. */
export function prepareHostPlace(agentDir: string, build: string): HostPlace {
  const folder = hostDir(agentDir);
  ensurePrivateFolder(folder);
  const keyFile = hostKeyFile(agentDir);
  const key = hostKey(keyFile);
  const socketPath = hostSocketPath(agentDir, build);
  if (dirname(socketPath) !== folder) ensurePrivateFolder(dirname(socketPath));
  checkSocket(socketPath);
  return { socketPath, keyFile, key };
}
