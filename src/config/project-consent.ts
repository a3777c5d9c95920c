// The user's own consent to servers defined by project files (issue 23): remembered per project (its
// real path) in the agent dir, keyed by what each entry runs and the content of the project files it
// names directly (./consent-scripts.ts, issue 34), so a changed entry or script asks again. Pi's default
// "trusted, nothing to ask" is not consent; the loader (./load.ts) starts no project server this does
// not allow.

import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { replaceAtomically } from '../fs/atomic-file.ts';
import { acquireFileLock } from '../fs/file-lock.ts';
import { isPlainObject } from '../plain-object.ts';
import { adapterStableText } from './config-hash.ts';
import { realOrResolved, type ScriptHashes } from './consent-scripts.ts';
import { type ReadFile, readFileFromDisk } from './read-file.ts';

export const CONSENT_FILE_NAME = 'mcp-project-consent.json';

/**
 * Whether the user allowed the project server `name` whose entry has consent key `key` and names the
 * project files `scripts`: true, false (never allowed, or another entry), or why it asks again.
 */
export type ProjectConsent = (
  name: string,
  key: string,
  scripts?: ScriptHashes,
) => boolean | { changed: string };

/** One consent: the entry's key, and the scripts it named then (absent in records made before those counted). */
interface ConsentRecord {
  key: string;
  scripts?: ScriptHashes;
}

interface ConsentFile {
  version: 1;
  /** Project folder (real path) → server name → the consent (a bare key when it named no script). */
  projects: Record<string, Record<string, string | ConsentRecord>>;
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
  return (name, key, scripts = {}) => {
    const stored = Object.hasOwn(allowed, name) ? allowed[name] : undefined;
    const record = typeof stored === 'string' ? { key: stored } : stored;
    if (record?.key !== key) return false;
    const named = Object.keys(scripts);
    if (named.length === 0) return true;
    if (record.scripts === undefined)
      return { changed: `${named.join(', ')} was not part of the consent you gave` };
    const changed = named.filter((word) => record.scripts![word] !== scripts[word]);
    return changed.length === 0 ? true : { changed: `${changed.join(', ')} changed since you allowed it` };
  };
}

/** The servers of project `cwd` the user allowed (whatever entry they were allowed for). */
export function consentedServers(agentDir: string, cwd: string): string[] {
  return Object.keys(
    readConsentFile(consentFile(agentDir), readFileFromDisk).projects[projectKey(cwd)] ?? {},
  );
}

/** Remembers that the user allowed these servers of the project `cwd` (read-merge-write under a lock). */
export async function rememberConsent(
  agentDir: string,
  cwd: string,
  servers: Array<{ name: string; key: string; scripts?: ScriptHashes | undefined }>,
): Promise<void> {
  await updateProjectConsents(agentDir, cwd, (project) => {
    for (const { name, key, scripts } of servers)
      project[name] = scripts === undefined || Object.keys(scripts).length === 0 ? key : { key, scripts };
  });
}

/** The consents of project `cwd` (server → what was allowed), changed by `change` under the file's lock. */
export async function updateProjectConsents<T>(
  agentDir: string,
  cwd: string,
  change: (project: Record<string, string | ConsentRecord>) => T,
): Promise<T> {
  const file = consentFile(agentDir);
  mkdirSync(dirname(file), { recursive: true });
  const lock = await acquireFileLock(`${file}.lock`);
  if (!lock.ok) throw new Error(lock.reason);
  try {
    const data = readConsentFile(file, readFileFromDisk);
    const key = projectKey(cwd);
    const project = data.projects[key] ?? Object.create(null);
    const result = change(project);
    if (Object.keys(project).length > 0) data.projects[key] = project;
    else delete data.projects[key];
    await replaceAtomically(file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    return result;
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
    const kept: Record<string, string | ConsentRecord> = Object.create(null);
    for (const [name, value] of Object.entries(servers)) {
      const record = consentRecord(value);
      if (record !== undefined) kept[name] = record;
    }
    projects[path] = kept;
  }
  return { version: 1, projects };
}

function consentRecord(value: unknown): string | ConsentRecord | undefined {
  if (typeof value === 'string') return value;
  if (!isPlainObject(value) || typeof value.key !== 'string') return undefined;
  if (!isPlainObject(value.scripts)) return { key: value.key };
  const scripts: ScriptHashes = Object.create(null);
  for (const [word, hash] of Object.entries(value.scripts))
    if (typeof hash === 'string') scripts[word] = hash;
  return { key: value.key, scripts };
}

/** The folder's real path: a symlink to it names the same project, and a symlink's old target no longer. */
function projectKey(cwd: string): string {
  return realOrResolved(cwd);
}
