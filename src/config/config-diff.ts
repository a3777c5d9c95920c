// What an edit of the config changed, per server: the plain half of a live config (DESIGN.md rule 14).
// The session applies it (src/machines/session.machine.ts): added servers start, removed ones finish
// their calls and close, changed ones restart after their calls. What an edit breaks keeps its last
// good version (./last-good.ts); the rest of the edit applies.

import type { Diagnostic, LoadedConfig, ServerDefinition, Settings } from './types.ts';

export interface ConfigDiff {
  added: ServerDefinition[];
  /** Gone, disabled (`enabled: false`), or now waiting for the user's consent. */
  removed: ServerDefinition[];
  /** Same name, different definition: restarts after its calls in flight. */
  changed: ServerDefinition[];
  /** Settings that changed and apply now. */
  settings: string[];
  /** Settings that changed but keep their value until a new session. */
  laterSettings: string[];
}

/** Settings read once per session (names, the gateway tool, where servers run, the session's files). */
export const SESSION_SETTINGS = [
  'toolPrefix',
  'proxyTool',
  'sharedHost',
  'trace',
  'captureStats',
  'directToolsEnv',
] as const satisfies readonly (keyof Settings)[];

/** The files a config came from, to watch: user, flag, project, imports (missing ones too: they may appear). */
export function configFiles(config: LoadedConfig): string[] {
  return [...new Set(config.files.map((f) => f.file))].sort();
}

/**
 * The difference between two good configs. `next`'s session settings are replaced by `last`'s (they
 * change at the next session): the config to apply is `config`.
 */
export function diffConfig(
  last: LoadedConfig,
  next: LoadedConfig,
): { diff: ConfigDiff; config: LoadedConfig } {
  const before = new Map(last.servers.map((d) => [d.name, d]));
  const after = new Map(next.servers.map((d) => [d.name, d]));
  const added = next.servers.filter((d) => !before.has(d.name));
  const removed = last.servers.filter((d) => !after.has(d.name));
  const changed = next.servers.filter((d) => {
    const old = before.get(d.name);
    return old !== undefined && definitionKey(old) !== definitionKey(d);
  });
  const settings: string[] = [];
  const laterSettings: string[] = [];
  const kept: Record<string, unknown> = { ...next.settings };
  const keys = new Set([...Object.keys(last.settings), ...Object.keys(next.settings)]);
  for (const key of [...keys].sort()) {
    const a = (last.settings as unknown as Record<string, unknown>)[key];
    const b = (next.settings as unknown as Record<string, unknown>)[key];
    if (stable(a) === stable(b)) continue;
    if ((SESSION_SETTINGS as readonly string[]).includes(key)) {
      laterSettings.push(key);
      if (a === undefined) delete kept[key];
      else kept[key] = a;
    } else settings.push(key);
  }
  return {
    diff: { added, removed, changed, settings, laterSettings },
    config: { ...next, settings: kept as unknown as Settings },
  };
}

export function isEmptyDiff(diff: ConfigDiff): boolean {
  return (
    diff.added.length + diff.removed.length + diff.changed.length + diff.settings.length === 0 &&
    diff.laterSettings.length === 0
  );
}

/** What an edit did, in one line: `config changed: +beta −alpha, notes restarted`. */
export function describeDiff(diff: ConfigDiff): string {
  const parts: string[] = [];
  const servers = [...diff.added.map((d) => `+${d.name}`), ...diff.removed.map((d) => `−${d.name}`)];
  if (servers.length > 0) parts.push(servers.join(' '));
  if (diff.changed.length > 0) parts.push(`${diff.changed.map((d) => d.name).join(', ')} restarted`);
  if (diff.settings.length > 0) parts.push(`settings ${diff.settings.join(', ')} applied`);
  if (diff.laterSettings.length > 0)
    parts.push(`settings ${diff.laterSettings.join(', ')} apply in a new session (/reload)`);
  return `config changed: ${parts.join(', ') || 'nothing that runs'}`;
}

/**
 * A bad save, once: file, line (in the message), key path, and that the last good config stays for
 * what it broke (that file, that server's entry) while the rest of the edit applies.
 */
export function describeBadSave(errors: Diagnostic[]): string {
  const first = errors[0]!;
  const where = [first.file, first.path].filter(Boolean).join(' ');
  const more = errors.length > 1 ? ` (+${errors.length - 1} more)` : '';
  return `config edit not applied, the last good config stays${where ? ` for ${where}` : ''}: ${first.message}${more}`;
}

/** A definition's identity for restarts; where it was written (file, key path) does not count. */
function definitionKey(d: ServerDefinition): string {
  const { source: _source, ...rest } = d;
  return stable(rest);
}

function stable(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}
