// The secret a host and its sessions share: a random key in a file only the user can read (0600, in
// the 0700 host folder of the agent dir), made by whoever needs it first. The hello proves both ways
// that the other side knows it (HMAC over a nonce from each side), so something else listening on
// the socket's path learns nothing, and a session sends nothing before the host has proven itself.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { errorCode } from '../fs/error-code.ts';
import { existsQuietly, HostPlaceError, privacyProblem } from './private-place.ts';

const KEY = /^[0-9a-f]{64}$/;

/** The key in `file`, made first when there is none. Throws HostPlaceError when it is not private or unreadable. */
export function hostKey(file: string): Buffer {
  if (!existsQuietly(file)) createKey(file);
  const problem = privacyProblem(file, 'file');
  if (problem) throw new HostPlaceError(`refused the shared host's key: ${problem}`);
  const text = readFileSync(file, 'utf8').trim();
  if (!KEY.test(text)) throw new HostPlaceError(`the shared host's key ${file} is not a key`);
  return Buffer.from(text, 'hex');
}

/** Written under a temp name and linked into place: the link fails if another made it first, and no reader sees half a key. */
function createKey(file: string): void {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    linkSync(temp, file);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST')
      throw new HostPlaceError(
        `the shared host's key ${file} cannot be made (${errorCode(error) ?? String(error)})`,
      );
  } finally {
    try {
      unlinkSync(temp);
    } catch {}
  }
}

/** A fresh nonce for one side of a hello. */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/** What the host answers the session's nonce with (and its own nonce). */
export function hostProof(key: Buffer, sessionNonce: string, hostNonce: string): string {
  return proof(key, 'host', sessionNonce, hostNonce);
}

/** What the session answers the host's nonce with, once the host has proven itself. */
export function sessionProof(key: Buffer, sessionNonce: string, hostNonce: string): string {
  return proof(key, 'session', sessionNonce, hostNonce);
}

function proof(key: Buffer, side: string, sessionNonce: string, hostNonce: string): string {
  return createHmac('sha256', key)
    .update(`pi-mcp-actors ${side}\n${sessionNonce}\n${hostNonce}`)
    .digest('hex');
}

/** Whether `given` (from the wire, any type) is `expected`, compared in constant time. */
export function proofMatches(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
