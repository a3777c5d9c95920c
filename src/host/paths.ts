// Where the shared host lives: a private folder of the agent dir, one socket per package version.

import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageFile } from '../package-files.ts';

/** The folder (mode 0700) that holds the host's socket. */
export function hostDir(agentDir: string): string {
  return join(agentDir, 'mcp-host');
}

/** Longest Unix socket path we use (sun_path holds 108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

/** The socket of the host of this package version; a private temp folder when the agent dir's path is too long. */
export function hostSocketPath(agentDir: string, version: string): string {
  const name = `host-${version.replace(/[^0-9A-Za-z.+-]/g, '_')}.sock`;
  const inAgentDir = join(hostDir(agentDir), name);
  if (Buffer.byteLength(inAgentDir) <= MAX_SOCKET_PATH) return inAgentDir;
  const uid = process.getuid?.() ?? 0;
  const hash = createHash('sha256').update(agentDir).digest('hex').slice(0, 12);
  return join(tmpdir(), `pi-mcp-actors-${uid}`, `${hash}-${name}`);
}

/** Creates the socket's folder private to the user (0700, also when it existed with looser modes). */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

let version: string | undefined;

/** This package's version (PI_MCP_ACTORS_HOST_VERSION overrides it, for tests of a host of another version). */
export function packageVersion(env: Record<string, string | undefined> = process.env): string {
  const forced = env.PI_MCP_ACTORS_HOST_VERSION;
  if (forced) return forced;
  if (version === undefined) {
    try {
      version = (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string })
        .version;
    } catch {
      // A bundle copied out of its package: it still gets a host, of its own.
      version = 'unpackaged';
    }
  }
  return version;
}
