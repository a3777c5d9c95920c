// Reading one config file (through the `readFile` seam of ./read-file.ts, src/config's only file access) and
// finding the server entries, `imports` and top-level keys in it.

import { isPlainObject } from '../plain-object.ts';
import { applyCompat, TOP_LEVEL_COMPAT } from './compat.ts';
import { diagnostic } from './diagnostics.ts';
import type { Dialect } from './dialects.ts';
import { formatPath, type PathSegment } from './json-path.ts';
import { formatOf, parseConfigText } from './parse.ts';
import { type ReadFile, UnreadableFileError } from './read-file.ts';
import { FileSchema, IMPORT_NAMES, type ImportName, propertiesOf } from './schema.ts';
import { didYouMean } from './suggest.ts';
import type { Diagnostic, LoadedConfig, SourceRef } from './types.ts';

export interface ReadState {
  readFile: ReadFile;
  files: LoadedConfig['files'];
  diagnostics: Diagnostic[];
}

export interface RawEntry {
  name: string;
  raw: unknown;
  source: SourceRef;
  entryPath: PathSegment[];
  dialect: Dialect;
  foreign: boolean;
}

/** The file's top-level object; undefined when missing, empty, unreadable or invalid (with a diagnostic). */
export function readDocument(
  file: string,
  kind: SourceRef['kind'],
  state: ReadState,
  warnIfMissing = false,
): Record<string, unknown> | undefined {
  let text: string | undefined;
  try {
    text = state.readFile(file);
  } catch (error) {
    state.files.push({ file, kind, found: true });
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const why =
      error instanceof UnreadableFileError
        ? error.message.slice(file.length + 1)
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (code ?? 'read failed');
    state.diagnostics.push(
      diagnostic('error', 'read-error', `Cannot read ${file} (${why}); its servers are not loaded.`, {
        file,
      }),
    );
    return undefined;
  }
  state.files.push({ file, kind, found: text !== undefined });
  if (text === undefined) {
    if (warnIfMissing) {
      state.diagnostics.push(
        diagnostic(
          'warning',
          'config-not-found',
          `The config file given with --mcp-config does not exist: ${file}.`,
          {
            file,
            fix: 'Check the path passed to --mcp-config.',
          },
        ),
      );
    }
    return undefined;
  }
  const format = formatOf(file);
  const parsed = parseConfigText(text, format);
  if (!parsed.ok) {
    const what = format === 'toml' ? 'TOML' : 'JSON';
    state.diagnostics.push(
      diagnostic(
        'error',
        format === 'toml' ? 'invalid-toml' : 'invalid-json',
        `${file} is not valid ${what} (line ${parsed.line}, column ${parsed.column}: ${parsed.reason}); this file is ignored, other files still load.`,
        {
          file,
          fix:
            format === 'toml'
              ? `Fix the syntax at line ${parsed.line}.`
              : `Fix the syntax at line ${parsed.line} (comments and trailing commas are allowed).`,
        },
      ),
    );
    return undefined;
  }
  if (parsed.empty) return undefined;
  for (const duplicate of parsed.duplicateKeys) {
    state.diagnostics.push(
      diagnostic(
        'warning',
        'duplicate-key',
        `Key ${formatPath(duplicate)} appears twice; the last one is used.`,
        {
          file,
          path: formatPath(duplicate),
          fix: 'Remove or rename one of them.',
        },
      ),
    );
  }
  if (!isPlainObject(parsed.value)) {
    state.diagnostics.push(
      diagnostic('error', 'invalid-file', `${file} must contain an object at the top level; it is ignored.`, {
        file,
        fix: 'Wrap the servers in { "mcpServers": { … } }.',
      }),
    );
    return undefined;
  }
  return parsed.value;
}

const CONTAINERS: Array<[string, Dialect]> = [
  ['mcpServers', 'native'],
  ['mcp-servers', 'native'],
  ['servers', 'native'],
  ['mcp_servers', 'codex'],
  ['mcp', 'opencode'],
];

export interface EntryOrigin {
  file: string;
  kind: SourceRef['kind'];
  importedFrom?: string;
  /** Files of other clients: quieter about keys they use and we do not. */
  foreign: boolean;
}

/** Server entries of every server map in `object` (at `base` inside the file). First definition of a name wins. */
export function entriesOf(
  object: Record<string, unknown>,
  origin: EntryOrigin,
  diagnostics: Diagnostic[],
  base: PathSegment[] = [],
): RawEntry[] {
  const entries: RawEntry[] = [];
  const seen = new Map<string, string>();
  for (const [container, dialect] of CONTAINERS) {
    if (!Object.hasOwn(object, container)) continue;
    const servers = object[container];
    const containerPath = [...base, container];
    if (!isPlainObject(servers)) {
      diagnostics.push(
        diagnostic(
          'error',
          'invalid-file',
          `${formatPath(containerPath)} must be an object of servers by name; it is ignored.`,
          {
            file: origin.file,
            path: formatPath(containerPath),
            fix: `Write "${container}": { "name": { "command": "…" } }.`,
          },
        ),
      );
      continue;
    }
    for (const [name, raw] of Object.entries(servers)) {
      const entryPath = [...containerPath, name];
      const first = seen.get(name);
      if (first !== undefined) {
        diagnostics.push(
          diagnostic(
            'warning',
            'duplicate-server',
            `Server "${name}" is defined in both ${first} and ${container}; the first is used.`,
            {
              file: origin.file,
              path: formatPath(entryPath),
              server: name,
              fix: 'Keep one definition.',
            },
          ),
        );
        continue;
      }
      seen.set(name, container);
      const source: SourceRef = { file: origin.file, kind: origin.kind, keyPath: formatPath(entryPath) };
      if (origin.importedFrom !== undefined) source.importedFrom = origin.importedFrom;
      entries.push({ name, raw, source, entryPath, dialect, foreign: origin.foreign });
    }
  }
  return entries;
}

const TOP_LEVEL_KEYS = Object.keys(propertiesOf(FileSchema));

/** Warn about top-level keys of our own files that mean nothing; note VS Code inputs. */
export function checkTopLevel(
  object: Record<string, unknown>,
  file: string,
  diagnostics: Diagnostic[],
): void {
  noteInputs(object, file, diagnostics);
  for (const note of applyCompat(object, [TOP_LEVEL_COMPAT]).notes) {
    diagnostics.push(
      diagnostic('info', 'compat-key', `${note.message}.`, { file, path: formatPath([note.key]) }),
    );
  }
  for (const key of Object.keys(object)) {
    if (key === 'inputs' || TOP_LEVEL_KEYS.includes(key) || Object.hasOwn(TOP_LEVEL_COMPAT, key)) continue;
    diagnostics.push(
      diagnostic('warning', 'unknown-key', `Unknown top-level key "${key}" is ignored.`, {
        file,
        path: formatPath([key]),
        fix: didYouMean(key, TOP_LEVEL_KEYS),
      }),
    );
  }
}

/** VS Code's `inputs` are prompted by VS Code; we cannot ask, so they are ignored (info). */
export function noteInputs(object: Record<string, unknown>, file: string, diagnostics: Diagnostic[]): void {
  if (!Object.hasOwn(object, 'inputs')) return;
  diagnostics.push(
    diagnostic(
      'info',
      'vscode-inputs',
      '"inputs" (VS Code prompted values) are not supported and are ignored.',
      {
        file,
        path: 'inputs',
        fix: `Pass such values through environment variables: \${NAME}.`,
      },
    ),
  );
}

export function readImports(
  object: Record<string, unknown>,
  file: string,
  diagnostics: Diagnostic[],
): ImportName[] {
  if (!Object.hasOwn(object, 'imports')) return [];
  const raw = object.imports;
  const list = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list)) {
    diagnostics.push(
      diagnostic('error', 'invalid-imports', '"imports" must be a list of client names; it is ignored.', {
        file,
        path: 'imports',
        fix: `Example: "imports": ["cursor", "claude-code"]. Known: ${IMPORT_NAMES.join(', ')}.`,
      }),
    );
    return [];
  }
  const names: ImportName[] = [];
  list.forEach((item: unknown, index: number) => {
    if (typeof item === 'string' && (IMPORT_NAMES as readonly string[]).includes(item)) {
      names.push(item as ImportName);
      return;
    }
    const shown = typeof item === 'string' ? `"${item.slice(0, 40)}"` : 'a non-string value';
    diagnostics.push(
      diagnostic('warning', 'unknown-import', `Unknown import ${shown} is ignored.`, {
        file,
        path: formatPath(['imports', index]),
        fix:
          (typeof item === 'string' ? didYouMean(item, IMPORT_NAMES) : undefined) ??
          `Known imports: ${IMPORT_NAMES.join(', ')}.`,
      }),
    );
  });
  return names;
}
