// A project's `settings` may tighten the user's safety settings, never loosen them, and never name a
// file: whatever would loosen is dropped with a diagnostic at its key (issue 23). Settings without a
// safety side (toolPrefix, idleTimeout, …) apply as written.

import { isPlainObject } from '../plain-object.ts';
import { defaultSettings } from './defaults.ts';
import { diagnostic } from './diagnostics.ts';
import { formatPath, type PathSegment } from './json-path.ts';
import type { SettingsLayer } from './settings.ts';
import type { Diagnostic } from './types.ts';

/**
 * Settings whose `true` lets a server or the model do more without asking (`sharedHost`: servers that
 * outlive the session in a background process).
 */
const PERMISSIONS = ['sampling', 'samplingAutoApprove', 'elicitation', 'autoAuth', 'sharedHost'] as const;
/** Settings only the user's own files may set, and why. */
const USER_ONLY: Record<string, string> = {
  oauthDir: 'a project may not choose where sign-ins are kept',
  oauthCredentialStore: 'a project may not choose where sign-ins are kept',
  trustedProjectFolders: 'only your user file says which folders are trusted',
};

/** The project layer as it may apply over the user's layers (`user`: them merged, lowest first). */
export function tightenOnly(
  user: SettingsLayer,
  project: SettingsLayer,
  diagnostics: Diagnostic[],
): SettingsLayer {
  const defaults = defaultSettings();
  const current = (key: string): unknown =>
    user.has(key) ? user.get(key)!.value : (defaults as unknown as Record<string, unknown>)[key];
  const result: SettingsLayer = new Map();
  const ignore = (file: string, path: PathSegment[], why: string) =>
    diagnostics.push(
      diagnostic('warning', 'project-setting-ignored', `${formatPath(path)} is ignored: ${why}.`, {
        file,
        path: formatPath(path),
        fix: 'Set it in your user file (~/.pi/agent/mcp.json) if you want it.',
      }),
    );
  for (const [key, entry] of project) {
    const { value, file, path } = entry;
    const keep = (v: unknown) => result.set(key, { value: v, file, path });
    if ((PERMISSIONS as readonly string[]).includes(key)) {
      if (value === true && current(key) !== true) ignore(file, path, 'a project may switch it off, not on');
      else keep(value);
    } else if (Object.hasOwn(USER_ONLY, key)) {
      ignore(file, path, USER_ONLY[key]!);
    } else if (key === 'approveTools') {
      const before = current(key);
      if (value === false && before !== false)
        ignore(file, path, 'a project may ask for more approvals, not fewer');
      else if (Array.isArray(value) && before === true)
        ignore(file, path, 'every tool already needs approval');
      else keep(widerApproval(before, value));
    } else if (key === 'outputLimitBytes') {
      if (typeof value === 'number' && value > (current(key) as number))
        ignore(file, path, 'a project may lower the output limit, not raise it');
      else keep(value);
    } else if (key === 'roots') {
      // Roots tell a server which folders it may touch: a project may withhold them, not hand them out.
      if (value !== false && JSON.stringify(value) !== JSON.stringify(current(key)))
        ignore(
          file,
          path,
          'a project may withhold roots from your servers, not choose which folders they get',
        );
      else keep(value);
    } else if (key === 'trace') {
      keep(traceOf(value, current(key), file, path, ignore));
    } else if (key === 'captureStats') {
      const stats = statsOf(value, user.get(key)?.value, file, path, ignore);
      if (stats !== undefined) keep(stats);
    } else keep(value);
  }
  return result;
}

/** The approval rule that asks whenever either asks. */
export function widerApproval(user: unknown, project: unknown): boolean | string[] {
  if (user === true || project === true) return true;
  const list = [...(Array.isArray(user) ? user : []), ...(Array.isArray(project) ? project : [])];
  return list.length === 0 ? false : [...new Set(list.map(String))];
}

type Ignore = (file: string, path: PathSegment[], why: string) => void;

function traceOf(value: unknown, user: unknown, file: string, path: PathSegment[], ignore: Ignore): unknown {
  if (!isPlainObject(value)) return value;
  const userTrace = isPlainObject(user) ? user : {};
  const out: Record<string, unknown> = {};
  for (const [inner, v] of Object.entries(value)) {
    const at = [...path, inner];
    if (inner === 'file') ignore(file, at, 'a project may not choose where the trace is written');
    else if (inner === 'enabled' && v === true && userTrace.enabled !== true)
      ignore(file, at, 'a project may switch tracing off, not on');
    else if (
      (inner === 'maxBytes' || inner === 'maxEvents') &&
      typeof v === 'number' &&
      typeof userTrace[inner] === 'number' &&
      v > (userTrace[inner] as number)
    )
      ignore(file, at, 'a project may lower the bound, not raise it');
    else out[inner] = v;
  }
  // The user's own choices stay (the merge replaces the whole object).
  return { ...userTrace, ...out };
}

function statsOf(value: unknown, user: unknown, file: string, path: PathSegment[], ignore: Ignore): unknown {
  if (value === false) return false;
  const userOn = user !== undefined && user !== false;
  if (!userOn) {
    ignore(file, path, 'a project may switch statistics off, not on');
    return undefined;
  }
  if (!isPlainObject(value)) return user;
  const { path: statsPath, ...rest } = value;
  if (statsPath !== undefined)
    ignore(file, [...path, 'path'], 'a project may not choose where statistics are written');
  return { ...(isPlainObject(user) ? user : {}), ...rest };
}
