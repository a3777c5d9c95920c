// A bad save keeps the last good config for what it breaks, not for the whole edit (DESIGN.md rule 14,
// docs/config.md "Editing while sessions run"). A file that no longer parses is read as its last good
// version and merged with the other files as the loader always does (precedence, imports, overrides);
// a server whose entry no longer validates keeps its last good definition; a setting whose value no
// longer validates keeps its last good value. Everything else the edit changed applies. A file or server that never had a good
// version is left out, as at a session's start.

import { configFiles } from './config-diff.ts';
import { type ReadState, readDocument } from './documents.ts';
import { type ReadFile, readFileFromDisk } from './read-file.ts';
import { type LastGoodSettings, readSettings } from './settings.ts';
import type { Diagnostic, LoadedConfig, SourceRef } from './types.ts';

/** Errors after which the loader ignores a whole file. */
const FILE_ERRORS: ReadonlySet<string> = new Set([
  'invalid-json',
  'invalid-toml',
  'invalid-file',
  'read-error',
]);

/** How a live edit's load reads: through these only (see `LoadOptions`). */
export interface LiveRead {
  readFile: ReadFile;
  lastGoodSettings: LastGoodSettings;
}

/** The files that hold settings: our own (imported files' are not read as settings). */
const SETTINGS_FILES: ReadonlySet<SourceRef['kind']> = new Set(['user', 'flag', 'project']);

export interface Reread {
  /** What to apply: the files as they are, each broken one as its last good version. */
  config: LoadedConfig;
  /** The errors the session's files have now that they did not have at its start: file, line, key path. */
  errors: Diagnostic[];
}

/** One session's memory of its config files' last good texts (kept in memory only: they hold secrets). */
export class LastGoodConfig {
  private readonly texts = new Map<string, string>();
  /** Each own file's last good setting values, by key (a bad value keeps the one before it). */
  private readonly settings = new Map<string, ReadonlyMap<string, unknown>>();
  /** Errors the session started with (told then) and that no read since has been without. */
  private known = new Set<string>();

  constructor(private readonly readFile: ReadFile = readFileFromDisk) {}

  /** The session's start: its files, as they are now, are their good versions; its errors are known. */
  start(config: LoadedConfig): void {
    this.texts.clear();
    this.settings.clear();
    this.known = new Set(errorsOf(config).map(diagnosticKey));
    const ignored = ignoredFiles(config);
    for (const { file, kind, found } of config.files) {
      if (!found || ignored.has(file)) continue;
      let text: string | undefined;
      const state: ReadState = {
        readFile: (path) => (text = this.readFile(path)),
        files: [],
        diagnostics: [],
      };
      const doc = readDocument(file, kind, state);
      // A file broken again since the start was read has no good version to keep.
      if (text === undefined || errorsOf(state).length > 0) continue;
      this.texts.set(file, text);
      this.rememberSettings(file, kind, doc);
    }
  }

  /**
   * Reads the config again through `load` (which must read files only through the `readFile` it is
   * given): once as the files are, and, when a file with a good version no longer parses, once more
   * with that version in its place. `last` is the config in force: a server the edit broke keeps its
   * definition there.
   */
  reread(last: LoadedConfig, load: (live: LiveRead) => LoadedConfig): Reread {
    const seen = new Map<string, string | undefined>();
    const reader =
      (instead: ReadonlyMap<string, string>): ReadFile =>
      (path) => {
        if (instead.has(path)) return instead.get(path);
        // Both reads see the same texts, even when a file changes between them.
        if (seen.has(path)) return seen.get(path);
        const text = this.readFile(path);
        seen.set(path, text);
        return text;
      };
    const lastGoodSettings: LastGoodSettings = (file) => this.settings.get(file);
    const current = load({ readFile: reader(new Map()), lastGoodSettings });
    const kept = new Map<string, string>();
    for (const file of ignoredFiles(current)) {
      const text = this.texts.get(file);
      if (text !== undefined) kept.set(file, text);
    }
    const merged = kept.size === 0 ? current : load({ readFile: reader(kept), lastGoodSettings });
    this.remember(current, merged, seen);
    // The merged read's problems, and the kept files' own: not what their absence caused in `current`
    // (another file's override of a server they define). /mcp lists them with the config's problems.
    const config: LoadedConfig =
      kept.size === 0
        ? merged
        : {
            ...merged,
            diagnostics: [
              ...current.diagnostics
                .filter((d) => d.file !== undefined && kept.has(d.file) && FILE_ERRORS.has(d.code))
                .map(keptVersion),
              ...merged.diagnostics,
            ],
          };
    const now = errorsOf(config);
    const nowKeys = new Set(now.map(diagnosticKey));
    this.known = new Set([...this.known].filter((key) => nowKeys.has(key)));
    const errors = now.filter((d) => !this.known.has(diagnosticKey(d)));
    return { config: keepBroken(last, config, errors), errors };
  }

  /** Every config file read without a file error is its new good version; a missing one has none. */
  private remember(
    current: LoadedConfig,
    merged: LoadedConfig,
    seen: ReadonlyMap<string, string | undefined>,
  ) {
    const files = new Set([...configFiles(current), ...configFiles(merged)]);
    const ignored = new Set([...ignoredFiles(current), ...ignoredFiles(merged)]);
    for (const file of this.texts.keys()) if (!files.has(file)) this.texts.delete(file);
    for (const file of this.settings.keys()) if (!files.has(file)) this.settings.delete(file);
    const kinds = new Map(current.files.map((f) => [f.file, f.kind]));
    for (const file of files) {
      if (ignored.has(file) || !seen.has(file)) continue;
      const text = seen.get(file);
      if (text === undefined) {
        this.texts.delete(file);
        this.settings.delete(file);
        continue;
      }
      this.texts.set(file, text);
      const kind = kinds.get(file);
      if (kind === undefined) continue;
      const doc = readDocument(file, kind, { readFile: () => text, files: [], diagnostics: [] });
      this.rememberSettings(file, kind, doc);
    }
  }

  /** A file's setting values now: the valid ones, and for an invalid one the value it had before. */
  private rememberSettings(file: string, kind: SourceRef['kind'], doc: Record<string, unknown> | undefined) {
    if (!SETTINGS_FILES.has(kind) || doc === undefined) return;
    const layer = readSettings(doc.settings, file, [], this.settings.get(file));
    this.settings.set(file, new Map([...layer].map(([key, { value }]) => [key, value])));
  }
}

/**
 * A server whose own entry an edit broke (an error naming it, in the file that defined it) keeps its
 * definition in `last`, instead of being skipped as at a start. An error elsewhere (another file's
 * override of a server the edit removed) keeps nothing. (A broken setting the loader kept already.)
 */
export function keepBroken(last: LoadedConfig, next: LoadedConfig, errors: Diagnostic[]): LoadedConfig {
  const running = new Set(next.servers.map((d) => d.name));
  const kept = last.servers.filter(
    (d) => !running.has(d.name) && errors.some((e) => e.server === d.name && e.file === d.source.file),
  );
  if (kept.length === 0) return next;
  const keptNames = new Set(kept.map((d) => d.name));
  return {
    ...next,
    servers: [...next.servers, ...kept].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    skipped: next.skipped.filter((s) => !keptNames.has(s.name)),
  };
}

/** A kept file's error says what happens now: not "ignored" (a start's words), its last good version is used. */
function keptVersion(d: Diagnostic): Diagnostic {
  return {
    ...d,
    message: `${d.message.replace(/;[^;]*$/, '')}; its last good version is used until it is fixed.`,
  };
}

function errorsOf(config: Pick<LoadedConfig, 'diagnostics'>): Diagnostic[] {
  return config.diagnostics.filter((d) => d.level === 'error');
}

/** Files the loader ignored as a whole (they did not parse, or could not be read). */
function ignoredFiles(config: LoadedConfig): Set<string> {
  return new Set(
    errorsOf(config).flatMap((d) => (d.file !== undefined && FILE_ERRORS.has(d.code) ? [d.file] : [])),
  );
}

function diagnosticKey(d: Diagnostic): string {
  return JSON.stringify([d.code, d.file, d.path, d.server, d.message]);
}
