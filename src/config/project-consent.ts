// The user's own consent to servers defined by project files (issue 23): remembered per project in the
// agent dir, keyed by what each entry runs, so a changed entry asks again. Pi's default "trusted,
// nothing to ask" is not consent; the loader (./load.ts) starts no project server this does not allow.

import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { replaceAtomically } from '../fs/atomic-file.ts';
import { acquireFileLock } from '../fs/file-lock.ts';
import { isPlainObject } from '../plain-object.ts';
import { adapterStableText } from './config-hash.ts';
import { type ReadFile, readFileFromDisk } from './read-file.ts';

export const CONSENT_FILE_NAME = 'mcp-project-consent.json';

/** Whether the user allowed the project server `name` whose entry has consent key `key`. */
export type ProjectConsent = (name: string, key: string) => boolean;

interface ConsentFile {
  version: 1;
  /** Project folder → server name → consent key of the entry the user allowed. */
  projects: Record<string, Record<string, string>>;
}

export function consentFile(agentDir: string): string {
  return join(agentDir, CONSENT_FILE_NAME);
}

/** What an entry runs, as written (a `${VAR}` stays a reference): any change asks again. */
export function consentKey(name: string, raw: unknown): string {
  return createHash('sha256')
    .update(adapterStableText([name, raw]))
    .digest('hex')
    .slice(0, 32);
}

/** The consents remembered for `cwd`; a missing or broken file allows nothing. */
export function readProjectConsent(
  agentDir: string,
  cwd: string,
  readFile: ReadFile = readFileFromDisk,
): ProjectConsent {
  const allowed = readConsentFile(consentFile(agentDir), readFile).projects[projectKey(cwd)] ?? {};
  return (name, key) => Object.hasOwn(allowed, name) && allowed[name] === key;
}

/** Remembers that the user allowed these servers of the project `cwd` (read-merge-write under a lock). */
export async function rememberConsent(
  agentDir: string,
  cwd: string,
  servers: Array<{ name: string; key: string }>,
): Promise<void> {
  const file = consentFile(agentDir);
  mkdirSync(dirname(file), { recursive: true });
  const lock = await acquireFileLock(`${file}.lock`);
  if (!lock.ok) throw new Error(lock.reason);
  try {
    const data = readConsentFile(file, readFileFromDisk);
    const key = projectKey(cwd);
    const project = data.projects[key] ?? (Object.create(null) as Record<string, string>);
    data.projects[key] = project;
    for (const { name, key } of servers) project[name] = key;
    await replaceAtomically(file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  } finally {
    lock.release();
  }
}

function readConsentFile(file: string, readFile: ReadFile): ConsentFile {
  const empty: ConsentFile = { version: 1, projects: Object.create(null) };
  let parsed: unknown;
  try {
    const text = readFile(file);
    if (text === undefined) return empty;
    parsed = JSON.parse(text);
  } catch {
    return empty;
  }
  if (!isPlainObject(parsed) || !isPlainObject(parsed.projects)) return empty;
  const projects: ConsentFile['projects'] = Object.create(null);
  for (const [path, servers] of Object.entries(parsed.projects)) {
    if (!isPlainObject(servers)) continue;
    const kept: Record<string, string> = Object.create(null);
    for (const [name, key] of Object.entries(servers)) if (typeof key === 'string') kept[name] = key;
    projects[path] = kept;
  }
  return { version: 1, projects };
}

function projectKey(cwd: string): string {
  return resolve(cwd);
}
