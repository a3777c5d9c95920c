// Where the shared host's socket and key live, and what makes a place the user's alone: the owner,
// the mode (no group or other bits), no symbolic link; the key made once, private, proven both ways.
// As root, another user's folder is made with chown (uid 65534, nobody).

import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildIdentity } from '../../../src/host/build-identity.ts';
import { hostKey, hostProof, newNonce, proofMatches, sessionProof } from '../../../src/host/host-key.ts';
import { prepareHostPlace } from '../../../src/host/host-place.ts';
import { hostDir, hostKeyFile, hostSocketPath, sharedSocketDir } from '../../../src/host/paths.ts';
import {
  checkSocket,
  ensurePrivateFolder,
  HostPlaceError,
  privacyProblem,
} from '../../../src/host/private-place.ts';

const NOBODY = 65534;
const uid = process.getuid!();
const asRoot = uid === 0;

let root: string;
const servers: Server[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pmh-place-'));
});
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

function listenAt(path: string, mode: number): Promise<void> {
  const server = createServer();
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(path, () => {
      chmodSync(path, mode);
      resolve();
    }),
  );
}

describe('a private folder', () => {
  it('is made 0700 when missing, and accepted', () => {
    const dir = join(root, 'host');
    ensurePrivateFolder(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(privacyProblem(dir, 'folder')).toBeUndefined();
  });

  it('open to others (0755) is refused, and left as it is', () => {
    const dir = join(root, 'open');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    expect(() => ensurePrivateFolder(dir)).toThrow(/open to other users \(mode 755\)/);
    expect(statSync(dir).mode & 0o777).toBe(0o755);
  });

  it.runIf(asRoot)("another user's is refused", () => {
    const dir = join(root, 'theirs');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, NOBODY, NOBODY);
    expect(() => ensurePrivateFolder(dir)).toThrow(HostPlaceError);
    expect(privacyProblem(dir, 'folder')).toMatch(/belongs to another user \(uid 65534/);
  });

  it('a symbolic link is refused, even to a private folder of the user', () => {
    const real = join(root, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(root, 'link');
    symlinkSync(real, link);
    expect(() => ensurePrivateFolder(link)).toThrow(/is a symbolic link/);
  });

  it('cannot be made under a missing parent: said, not thrown as something else', () => {
    expect(() => ensurePrivateFolder(join(root, 'missing', 'host'))).toThrow(/cannot be made \(ENOENT\)/);
  });
});

describe('the socket', () => {
  it('a private socket of the user is accepted; none at all is accepted (nothing to connect to)', async () => {
    const path = join(root, 's.sock');
    checkSocket(path);
    await listenAt(path, 0o600);
    expect(() => checkSocket(path)).not.toThrow();
  });

  it('a socket open to others is refused', async () => {
    const path = join(root, 's.sock');
    await listenAt(path, 0o666);
    expect(() => checkSocket(path)).toThrow(/open to other users/);
  });

  it.runIf(asRoot)("another user's socket is refused", async () => {
    const path = join(root, 's.sock');
    await listenAt(path, 0o600);
    chownSync(path, NOBODY, NOBODY);
    expect(() => checkSocket(path)).toThrow(/belongs to another user/);
  });

  it("a symbolic link in the socket's place is refused", async () => {
    const real = join(root, 'real.sock');
    await listenAt(real, 0o600);
    symlinkSync(real, join(root, 's.sock'));
    expect(() => checkSocket(join(root, 's.sock'))).toThrow(/symbolic link/);
  });
});

describe('the key', () => {
  it('is made once, private (0600), and read the same by everyone after', () => {
    const file = join(root, 'host.key');
    const key = hostKey(file);
    expect(key).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(hostKey(file).equals(key)).toBe(true);
  });

  it('a key file others can read is refused', () => {
    const file = join(root, 'host.key');
    hostKey(file);
    chmodSync(file, 0o644);
    expect(() => hostKey(file)).toThrow(/open to other users/);
  });

  it.runIf(asRoot)("another user's key file is refused", () => {
    const file = join(root, 'host.key');
    writeFileSync(file, `${'ab'.repeat(32)}\n`, { mode: 0o600 });
    chownSync(file, NOBODY, NOBODY);
    expect(() => hostKey(file)).toThrow(/belongs to another user/);
  });

  it("proofs: each side's differs, and only the key makes them", () => {
    const key = hostKey(join(root, 'host.key'));
    const [s, h] = [newNonce(), newNonce()];
    expect(hostProof(key, s, h)).not.toBe(sessionProof(key, s, h));
    expect(proofMatches(hostProof(key, s, h), hostProof(key, s, h))).toBe(true);
    expect(proofMatches(hostProof(Buffer.alloc(32), s, h), hostProof(key, s, h))).toBe(false);
    expect(proofMatches(undefined, hostProof(key, s, h))).toBe(false);
    expect(proofMatches('short', hostProof(key, s, h))).toBe(false);
  });
});

describe('the socket path', () => {
  const build = '0.1.0-0123456789ab';
  const longAgentDir = () => join(root, 'x'.repeat(80), 'agent');

  it('of a short agent dir is in its host folder, named by the build', () => {
    const agentDir = join(root, 'a');
    expect(hostSocketPath(agentDir, build)).toBe(join(hostDir(agentDir), `host-${build}.sock`));
    expect(hostSocketPath(agentDir, 'other')).not.toBe(hostSocketPath(agentDir, build));
  });

  it('of a long agent dir does not depend on TMPDIR (two terminals find one host)', () => {
    const a = hostSocketPath(longAgentDir(), build, { uid, env: { TMPDIR: '/tmp/one' } });
    const b = hostSocketPath(longAgentDir(), build, { uid, env: { TMPDIR: '/var/tmp/two' } });
    expect(a).toBe(b);
    expect(Buffer.byteLength(a)).toBeLessThanOrEqual(100);
    expect(a).not.toContain('/tmp/one');
  });

  it("of a long agent dir is in the user's runtime folder when it is theirs and private", () => {
    const runtime = join(root, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    expect(sharedSocketDir({ uid, env: { XDG_RUNTIME_DIR: runtime } })).toBe(join(runtime, 'pi-mcp-actors'));
    chmodSync(runtime, 0o755);
    expect(sharedSocketDir({ uid, env: { XDG_RUNTIME_DIR: runtime } })).not.toContain(runtime);
  });

  it.runIf(asRoot)(
    'a runtime folder of another user is not used: /tmp/pi-mcp-actors-<uid>, checked before use',
    () => {
      const runtime = join(root, 'run');
      mkdirSync(runtime, { mode: 0o700 });
      chownSync(runtime, NOBODY, NOBODY);
      expect(sharedSocketDir({ uid: 65533, env: { XDG_RUNTIME_DIR: runtime } })).toBe(
        '/tmp/pi-mcp-actors-65533',
      );
    },
  );

  it('prepareHostPlace makes the host folder and the key, private, and refuses a host folder open to others', () => {
    const agentDir = join(root, 'a');
    mkdirSync(agentDir);
    const place = prepareHostPlace(agentDir, build);
    expect(place.socketPath).toBe(hostSocketPath(agentDir, build));
    expect(statSync(hostDir(agentDir)).mode & 0o777).toBe(0o700);
    expect(statSync(hostKeyFile(agentDir)).mode & 0o777).toBe(0o600);
    chmodSync(hostDir(agentDir), 0o755);
    expect(() => prepareHostPlace(agentDir, build)).toThrow(/open to other users/);
  });
});

describe('the build identity', () => {
  it('carries the version and a hash of the code, and is computed once', () => {
    const id = buildIdentity({});
    expect(id).toMatch(/^\d+\.\d+\.\d+\S*-[0-9a-f]{12}$/);
    expect(buildIdentity({})).toBe(id);
    expect(buildIdentity({ PI_MCP_ACTORS_HOST_BUILD: 'forced' })).toBe('forced');
  });
});
