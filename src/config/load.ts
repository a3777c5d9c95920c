// loadConfig: every source, merged by precedence, validated, interpolated and defaulted.
//
// Lowest → highest:  Pi's own list (piServers) < user file (or --mcp-config) < imports (only names
// not defined yet) < project .mcp.json < project .pi/mcp.json. An entry without command/url/type is
// a Pi-style override of enabled / exposure / toolExposure on the same name from a lower source (from
// the user file, of any other key too). A server of a file inside the project is used only with the
// user's consent (`projectConsent`), else it is `pending` and never resolved (docs/security.md).
// Settings: user ← project, where a project only tightens. Synchronous and never throws: every problem
// is a diagnostic.

import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isPlainObject } from '../plain-object.ts';
import { checkCaFile } from './ca-file.ts';
import { namedScripts } from './consent-scripts.ts';
import { defaultSettings, PROJECT_CONFIG_FILES, USER_CONFIG_FILE } from './defaults.ts';
import { diagnostic } from './diagnostics.ts';
import { DIRECT_TOOLS_ENV, parseDirectToolsEnv } from './direct-tools-env.ts';
import {
  checkTopLevel,
  entriesOf,
  noteInputs,
  type RawEntry,
  type ReadState,
  readDocument,
  readImports,
} from './documents.ts';
import { type EntryResult, type ServerSpec, validateEntry } from './entry.ts';
import { importLocations, projectLocations } from './imports.ts';
import { expandHome, type InterpolationContext } from './interpolate.ts';
import { formatPath, type PathSegment } from './json-path.ts';
import { consentKey, type ProjectConsent } from './project-consent.ts';
import { tightenOnly, widerApproval } from './project-settings.ts';
import { type ReadFile, readFileFromDisk } from './read-file.ts';
import { resolveServer } from './resolve.ts';
import type { ImportName } from './schema.ts';
import { buildSettings, type LastGoodSettings, readSettings, type SettingsLayer } from './settings.ts';
import type {
  Diagnostic,
  LoadedConfig,
  PendingServer,
  ServerDefinition,
  ServerFields,
  SkippedServer,
  SourceRef,
} from './types.ts';

export interface LoadOptions {
  /** Resolved agent dir (see agentDirFrom). */
  agentDir: string;
  /** Project directory. */
  cwd: string;
  /** For imports (~/.cursor/mcp.json, ~/.claude.json, ~/.codex/config.toml, ...) and `~`. */
  homeDir: string;
  /** For interpolation and MCP_DIRECT_TOOLS. */
  env: Record<string, string | undefined>;
  /** --mcp-config <path>: read instead of <agentDir>/mcp.json. */
  configPath?: string;
  /** When false, servers from project files are listed as skipped, with the reason and how to trust. */
  projectTrusted: boolean;
  /**
   * The user's own consent to project servers (./project-consent.ts). When given, a server defined by a
   * file inside the project starts only if this allows it; the others are `pending`. Absent: a trusted
   * project's servers all start (an explicit trust decision: Pi's --approve or its dialog, --trust-project).
   */
  projectConsent?: ProjectConsent;
  /** What Pi's pi.getMcpServers() returns, read as Pi-format user entries below the user file. Any shape. */
  piServers?: unknown;
  /** Which desktop-app folders imports look in; defaults to process.platform. */
  platform?: NodeJS.Platform;
  /** Test seam: file text, or undefined when the file does not exist; may throw on other failures. */
  readFile?: ReadFile;
  /** A live edit's read: a setting value that no longer validates keeps its last good one (./last-good.ts). */
  lastGoodSettings?: LastGoodSettings;
}

export const TRUST_REASON = 'the project is not trusted, so servers from its files are not started';
export const TRUST_FIX =
  'Trust the project in Pi (accept the trust prompt, or start Pi with --approve), then /reload.';
export const CONSENT_REASON = 'defined by a project file and not allowed for this project yet';
/** Allowed once, asked again: `changed` says why ("./server.sh changed since you allowed it"). */
export function consentReason(changed: string | undefined): string {
  return changed === undefined
    ? CONSENT_REASON
    : `defined by a project file, waiting for your consent again: ${changed}`;
}
export function consentFix(name: string, cwd: string): string {
  return `Allow it when Pi asks at start (terminal UI), with /mcp allow ${name} in Pi, or run: pi-mcp-actors allow ${shellWord(name)} --cwd ${shellWord(cwd)} (or list the folder in "trustedProjectFolders" of your user settings, or start Pi with --approve).`;
}
const PI_SERVERS_SOURCE = 'pi.getMcpServers()';
/** What a project entry without command/url may change of a server defined elsewhere (Pi 1.5's rule). */
const PROJECT_OVERRIDE_KEYS = ['enabled', 'disabled', 'exposure', 'toolExposure'] as const;

export function loadConfig(options: LoadOptions): LoadedConfig {
  try {
    return new Loader(options).load();
  } catch (error) {
    return {
      servers: [],
      skipped: [],
      settings: defaultSettings(),
      diagnostics: [
        diagnostic(
          'error',
          'internal-error',
          `The MCP configuration could not be loaded: ${errorText(error)}.`,
          {
            fix: 'Please report this with your config files (without secrets).',
          },
        ),
      ],
      files: [],
    };
  }
}

type Slot =
  | { state: 'valid'; spec: ServerSpec }
  | { state: 'invalid'; source: SourceRef; reason: string; fix?: string };

class Loader {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly files: LoadedConfig['files'] = [];
  private readonly read: ReadState;
  private readonly interpolation: InterpolationContext;
  private readonly slots = new Map<string, Slot>();
  private readonly skipped: SkippedServer[] = [];
  private readonly untrusted = new Map<string, SourceRef>();
  private readonly pending = new Map<string, PendingServer>();
  /** The user's settings.trustedProjectFolders lists the project: its servers count as allowed. */
  private trustedFolder = false;
  /** Names whose current definition comes from a file inside the project. */
  private readonly fromProject = new Set<string>();
  /** The allowed project servers' named scripts with their content hashes (./consent-scripts.ts). */
  private readonly allowedScripts = new Map<string, Record<string, string>>();
  private readonly consumed = new Set<string>();
  /** Untrusted project files that also carry settings or imports (not applied). */
  private readonly untrustedExtras = new Set<string>();

  constructor(private readonly options: LoadOptions) {
    this.read = {
      readFile: options.readFile ?? readFileFromDisk,
      files: this.files,
      diagnostics: this.diagnostics,
    };
    this.interpolation = { env: options.env, homeDir: options.homeDir, cwd: options.cwd };
  }

  load(): LoadedConfig {
    const o = this.options;
    const settingsLayers: SettingsLayer[] = [];
    const importNames: ImportName[] = [];
    /** A project's `imports` reach only the other clients' files inside the project (./imports.ts). */
    const projectImports: ImportName[] = [];

    // Our own files: the user file (or --mcp-config) and the project files.
    const userKind: SourceRef['kind'] = o.configPath === undefined ? 'user' : 'flag';
    const userFile =
      o.configPath === undefined
        ? join(o.agentDir, USER_CONFIG_FILE)
        : resolve(o.cwd, expandHome(o.configPath, o.homeDir));
    const userEntries = this.ownFile(userFile, userKind, settingsLayers, importNames);
    const projectFiles = PROJECT_CONFIG_FILES.map((relative) => join(o.cwd, relative)).filter(
      (file) => !this.consumed.has(file),
    );
    const projectLayers: SettingsLayer[] = [];
    const projectEntries = projectFiles.map((file) => ({
      file,
      entries: this.ownFile(file, 'project', o.projectTrusted ? projectLayers : undefined, projectImports),
    }));
    // A project's settings only tighten the user's (./project-settings.ts).
    const userLayer: SettingsLayer = new Map(settingsLayers.flatMap((layer) => [...layer]));
    this.trustedFolder = listsFolder(userLayer.get('trustedProjectFolders')?.value, o.cwd, o.homeDir);
    for (const layer of projectLayers) settingsLayers.push(tightenOnly(userLayer, layer, this.diagnostics));

    // 1. Pi's list, then the user file.
    const userFull = new Set(userEntries.filter((entry) => !looksPartial(entry)).map((entry) => entry.name));
    for (const entry of this.piServerEntries()) {
      if (userFull.has(entry.name) || this.slots.has(entry.name)) continue;
      this.takeFull(entry);
    }
    const userPartials: Array<{ entry: RawEntry; result: EntryResult }> = [];
    for (const entry of userEntries) {
      const result = this.validate(entry);
      if (result === undefined) continue;
      if (isPartialResult(result)) userPartials.push({ entry, result });
      else this.setSlot(entry, result);
    }

    // 2. Imports add names that are not defined yet.
    for (const client of new Set([...importNames, ...projectImports]))
      this.importClient(client, !importNames.includes(client));

    // 3. Overrides from the user file, then the project files (highest).
    for (const { entry, result } of userPartials) this.applyOverride(entry, result);
    for (const { file, entries } of projectEntries) {
      if (!o.projectTrusted) {
        this.noteUntrusted(file, entries);
        continue;
      }
      for (const entry of entries) {
        const result = this.validate(entry);
        if (result === undefined) continue;
        if (isPartialResult(result)) this.applyOverride(entry, result);
        else if (this.allowed(entry, result)) {
          this.replace(entry, result);
          this.fromProject.add(entry.name);
          this.pending.delete(entry.name);
        }
      }
    }

    // 4. Settings, then every server resolved against them.
    const settings = buildSettings(settingsLayers, o.agentDir, this.interpolation, this.diagnostics);
    const directToolsEnv = parseDirectToolsEnv(o.env[DIRECT_TOOLS_ENV], this.diagnostics);
    if (directToolsEnv !== undefined) settings.directToolsEnv = directToolsEnv;

    const servers: ServerDefinition[] = [];
    for (const name of [...this.slots.keys()].sort(byCodePoint)) {
      const slot = this.slots.get(name)!;
      if (slot.state === 'invalid') {
        this.skip(name, slot.source, slot.reason, slot.fix);
        continue;
      }
      const { spec } = slot;
      if (!isEnabled(spec.fields)) {
        const where = spec.enabledBy ?? spec.source;
        this.skip(
          name,
          spec.source,
          'disabled in the configuration',
          `Set "enabled": true at ${where.keyPath} in ${where.file}.`,
        );
        continue;
      }
      const resolved = resolveServer(spec, settings, this.interpolation);
      this.diagnostics.push(...resolved.diagnostics);
      const ca = resolved.ok
        ? checkCaFile(resolved.definition, spec.entryPath, this.read.readFile)
        : undefined;
      this.diagnostics.push(...(ca?.diagnostics ?? []));
      if (resolved.ok && this.fromProject.has(name)) {
        const definition = resolved.definition;
        definition.fromProject = true;
        const scripts = this.allowedScripts.get(name);
        if (scripts) definition.consentScripts = scripts;
        // A project's server may ask for more approvals than the settings, never fewer.
        const approve = widerApproval(settings.approveTools, spec.fields.approveTools ?? false);
        if (approve === false) delete definition.approveTools;
        else definition.approveTools = approve;
      }
      if (resolved.ok && ca?.ok) servers.push(resolved.definition);
      else if (ca !== undefined && !ca.ok) this.skip(name, spec.source, ca.reason, ca.fix);
      else if (!resolved.ok) this.skip(name, spec.source, resolved.reason, resolved.fix);
    }
    // A waiting entry that would replace the user's own server of that name leaves that one running.
    const running = new Set(servers.map((server) => server.name));
    for (const [name, waiting] of this.pending)
      if (!running.has(name))
        this.skip(name, waiting.source, consentReason(waiting.changed), consentFix(name, o.cwd));
    this.notePending(running);
    const skippedNames = new Set(this.skipped.map((entry) => entry.name));
    for (const [name, source] of this.untrusted) {
      if (!this.slots.has(name) && !skippedNames.has(name)) this.skip(name, source, TRUST_REASON, TRUST_FIX);
    }
    this.skipped.sort((a, b) => byCodePoint(a.name, b.name));
    this.checkServerReferences(settings.toonEncode, settings.directToolsEnv);

    return {
      servers,
      skipped: this.skipped,
      settings,
      diagnostics: this.diagnostics,
      files: this.files,
      ...(this.pending.size > 0 ? { pending: [...this.pending.values()] } : {}),
    };
  }

  /** A project server starts only with the user's consent (when consent is asked for); else it waits. */
  private allowed(entry: RawEntry, result: EntryResult): boolean {
    const consent = this.options.projectConsent;
    if (consent === undefined || this.trustedFolder) return true;
    const key = consentKey(entry.name, entry.raw);
    const scripts = result.ok ? namedScripts(result.spec.fields, this.options.cwd) : {};
    const verdict = consent(entry.name, key, scripts);
    if (verdict === true && Object.keys(scripts).length > 0) this.allowedScripts.set(entry.name, scripts);
    if (verdict === true) return true;
    // A later project file's entry of the same name is the one that would win: it is the one asked about.
    const waiting = pendingServer(entry, result, key);
    if (Object.keys(scripts).length > 0) waiting.scripts = scripts;
    if (verdict !== false) waiting.changed = verdict.changed;
    if (this.slots.has(entry.name) && !this.fromProject.has(entry.name))
      waiting.replaces = this.slotFile(entry.name);
    this.pending.set(entry.name, waiting);
    return false;
  }

  private notePending(running: Set<string>): void {
    if (this.pending.size === 0) return;
    const names = [...this.pending.keys()];
    const first = this.pending.get(names[0]!)!;
    const listed = `${names.slice(0, 10).join(', ')}${names.length > 10 ? `, … (${names.length} in all)` : ''}`;
    this.diagnostics.push(
      diagnostic(
        'warning',
        'project-server-not-allowed',
        `Not started, not allowed for this project yet: ${listed} (from ${first.source.file}${names.length > 1 ? ' and others' : ''}).${keptOwn(this.pending, running)}`,
        {
          file: first.source.file,
          fix: consentFix(names.length === 1 ? names[0]! : '--all', this.options.cwd),
        },
      ),
    );
  }

  /** Reads one of our own files; collects its settings and imports (when `settingsLayers` is given). */
  private ownFile(
    file: string,
    kind: SourceRef['kind'],
    settingsLayers: SettingsLayer[] | undefined,
    importNames: ImportName[],
  ): RawEntry[] {
    this.consumed.add(file);
    const doc = readDocument(file, kind, this.read, kind === 'flag');
    if (doc === undefined) return [];
    if (settingsLayers !== undefined) {
      checkTopLevel(doc, file, this.diagnostics);
      settingsLayers.push(
        readSettings(doc.settings, file, this.diagnostics, this.options.lastGoodSettings?.(file)),
      );
      importNames.push(...readImports(doc, file, this.diagnostics));
    } else if (Object.hasOwn(doc, 'settings') || Object.hasOwn(doc, 'imports')) {
      this.untrustedExtras.add(file);
    }
    return entriesOf(doc, { file, kind, foreign: false }, this.diagnostics);
  }

  /** Validates an entry; undefined when its name is unusable (already reported). */
  private validate(entry: RawEntry): EntryResult | undefined {
    if (entry.name.trim() === '') {
      const fix = 'Give the server a name: "mcpServers": { "my-server": { … } }.';
      this.diagnostics.push(
        diagnostic('error', 'invalid-server-name', 'A server has an empty name; it is skipped.', {
          file: entry.source.file,
          path: entry.source.keyPath,
          fix,
        }),
      );
      this.skipped.push({ name: entry.name, source: entry.source, reason: 'the server name is empty', fix });
      return undefined;
    }
    try {
      const result = validateEntry({ ...entry, env: this.options.env });
      this.diagnostics.push(...result.diagnostics);
      return result;
    } catch (error) {
      const reason = `could not be read: ${errorText(error)}`;
      this.diagnostics.push(
        diagnostic('error', 'internal-error', `Server "${entry.name}" ${reason}.`, {
          file: entry.source.file,
          path: entry.source.keyPath,
          server: entry.name,
        }),
      );
      return { ok: false, partial: false, reason, diagnostics: [] };
    }
  }

  /** Entries that must stand on their own (Pi's list, imports): an entry without transport is invalid. */
  private takeFull(entry: RawEntry): void {
    const result = this.validate(entry);
    if (result === undefined) return;
    if (result.ok && result.spec.partial) {
      this.markMissingTransport(
        entry,
        'neither "command" (stdio) nor "url" (http/sse) is set',
        'Add "command" for a local server or "url" for a remote one.',
      );
      return;
    }
    this.setSlot(entry, result);
  }

  private markMissingTransport(entry: RawEntry, detail: string, fix: string): void {
    this.diagnostics.push(missingTransport(entry, detail, fix));
    this.slots.set(entry.name, {
      state: 'invalid',
      source: entry.source,
      reason: `invalid configuration: ${detail}`,
      fix,
    });
  }

  private setSlot(entry: RawEntry, result: EntryResult): void {
    this.slots.set(
      entry.name,
      result.ok
        ? { state: 'valid', spec: result.spec }
        : {
            state: 'invalid',
            source: entry.source,
            reason: result.reason,
            ...(result.fix ? { fix: result.fix } : {}),
          },
    );
  }

  private replace(entry: RawEntry, result: EntryResult): void {
    const previous = this.slots.get(entry.name);
    if (previous !== undefined) {
      const from = previous.state === 'valid' ? previous.spec.source : previous.source;
      this.diagnostics.push(
        diagnostic(
          'info',
          'server-overridden',
          `Server "${entry.name}" from ${from.file} is replaced by the definition in ${entry.source.file}.`,
          {
            file: entry.source.file,
            path: entry.source.keyPath,
            server: entry.name,
          },
        ),
      );
    }
    this.setSlot(entry, result);
  }

  private applyOverride(entry: RawEntry, result: EntryResult): void {
    const base = this.slots.get(entry.name);
    if (base === undefined) {
      this.markMissingTransport(
        entry,
        'neither "command" (stdio) nor "url" (http/sse) is set, and no server of that name is defined elsewhere to override',
        'Add "command" or "url", or check the spelling of the name.',
      );
      return;
    }
    if (!result.ok) {
      // A broken override must not silently leave the server as it was (it may have meant to disable it).
      this.slots.set(entry.name, {
        state: 'invalid',
        source: entry.source,
        reason: result.reason,
        ...(result.fix ? { fix: result.fix } : {}),
      });
      return;
    }
    if (base.state === 'invalid') return;
    // Key by key over the lower definition: Pi's overrides of enabled / exposure / toolExposure, and
    // pi-mcp-adapter's per-field merge of any other key (directTools, env, …) from the user's own files.
    // A project may not change what the user's server runs: only Pi 1.5's three keys count there.
    const override = entry.source.kind === 'project' ? this.projectOverride(entry, result.spec) : result.spec;
    const { enabled, disabled, ...rest } = override.fields;
    const spec: ServerSpec = {
      ...base.spec,
      fields: { ...base.spec.fields, ...rest },
      written: { ...base.spec.written, ...override.written },
    };
    if (enabled !== undefined || disabled !== undefined) {
      spec.fields.enabled = isEnabled(override.fields);
      delete spec.fields.disabled;
      spec.enabledBy = entry.source;
    }
    this.slots.set(entry.name, { state: 'valid', spec });
    this.diagnostics.push(
      diagnostic(
        'info',
        'server-overridden',
        `Server "${entry.name}" from ${base.spec.source.file} is adjusted by ${entry.source.file}.`,
        {
          file: entry.source.file,
          path: entry.source.keyPath,
          server: entry.name,
        },
      ),
    );
  }

  /** The part of a project's override entry it may apply; every other key is reported and dropped. */
  private projectOverride(entry: RawEntry, spec: ServerSpec): Pick<ServerSpec, 'fields' | 'written'> {
    const fields: ServerFields = {};
    const written: Record<string, unknown> = {};
    for (const key of PROJECT_OVERRIDE_KEYS) {
      if (spec.fields[key] !== undefined) (fields as Record<string, unknown>)[key] = spec.fields[key];
      if (Object.hasOwn(spec.written, key)) written[key] = spec.written[key];
    }
    const raw = isPlainObject(entry.raw) ? Object.keys(entry.raw) : [];
    for (const key of raw) {
      const native = Object.entries(spec.origin).find(([, as]) => as === key)?.[0] ?? key;
      if ((PROJECT_OVERRIDE_KEYS as readonly string[]).includes(native)) continue;
      const path = formatPath([...entry.entryPath, key]);
      this.diagnostics.push(
        diagnostic(
          'warning',
          'project-override-ignored',
          `${path} is ignored: a project file may change only ${PROJECT_OVERRIDE_KEYS.filter((k) => k !== 'disabled').join(', ')} of the server "${entry.name}" defined in ${this.slotFile(entry.name)}.`,
          {
            file: entry.source.file,
            path,
            server: entry.name,
            fix: 'Give the project its own server under another name (with "command" or "url"), or change the user file.',
          },
        ),
      );
    }
    return { fields, written };
  }

  private slotFile(name: string): string {
    const slot = this.slots.get(name);
    return slot === undefined
      ? 'a user file'
      : slot.state === 'valid'
        ? slot.spec.source.file
        : slot.source.file;
  }

  private importClient(client: ImportName, projectOnly: boolean): void {
    const o = this.options;
    const context = { homeDir: o.homeDir, cwd: o.cwd, env: o.env, platform: o.platform ?? process.platform };
    const locations = importLocations(client, context);
    for (const location of projectOnly ? projectLocations(locations) : locations) {
      if (this.consumed.has(location.file)) continue;
      this.consumed.add(location.file);
      const doc = readDocument(location.file, 'import', this.read);
      if (doc === undefined) continue;
      noteInputs(doc, location.file, this.diagnostics);
      const origin = { file: location.file, kind: 'import' as const, importedFrom: client, foreign: true };
      const entries: RawEntry[] = [];
      if (location.claudeLocalScope) entries.push(...this.claudeLocalEntries(doc, origin));
      entries.push(...entriesOf(doc, origin, this.diagnostics));
      const inProject = location.project || isInsideProject(location.file, o.cwd, o.homeDir);
      for (const entry of entries) {
        if (inProject && !o.projectTrusted) {
          if (!this.untrusted.has(entry.name)) this.untrusted.set(entry.name, entry.source);
          continue;
        }
        if (inProject && this.pending.has(entry.name)) continue;
        const existing = this.slots.get(entry.name);
        if (existing !== undefined) {
          const source = existing.state === 'valid' ? existing.spec.source : existing.source;
          if (source.kind !== 'import') {
            this.diagnostics.push(
              diagnostic(
                'info',
                'import-shadowed',
                `Server "${entry.name}" from ${client} (${location.file}) is not imported: the name is already defined in ${source.file}.`,
                {
                  file: location.file,
                  path: entry.source.keyPath,
                  server: entry.name,
                },
              ),
            );
          }
          continue;
        }
        if (inProject) this.takeProjectImport(entry);
        else this.takeFull(entry);
      }
    }
  }

  /** An imported file inside the project (a project's .vscode/mcp.json, opencode.json, …): needs consent. */
  private takeProjectImport(entry: RawEntry): void {
    const result = this.validate(entry);
    if (result === undefined) return;
    if (result.ok && result.spec.partial) this.takeFull(entry);
    else if (this.allowed(entry, result)) {
      this.setSlot(entry, result);
      this.fromProject.add(entry.name);
    }
  }

  /** `~/.claude.json` keeps per-project ("local scope") servers under projects[<absolute path>]. */
  private claudeLocalEntries(
    doc: Record<string, unknown>,
    origin: Parameters<typeof entriesOf>[1],
  ): RawEntry[] {
    const projects = doc.projects;
    if (!isPlainObject(projects)) return [];
    const cwd = this.options.cwd;
    const key = Object.keys(projects).find((path) => path === cwd || path.replace(/[\\/]+$/, '') === cwd);
    if (key === undefined) return [];
    const project = projects[key];
    if (!isPlainObject(project) || !isPlainObject(project.mcpServers)) return [];
    const base: PathSegment[] = ['projects', key];
    return entriesOf({ mcpServers: project.mcpServers }, origin, this.diagnostics, base);
  }

  private piServerEntries(): RawEntry[] {
    const raw = this.options.piServers;
    if (raw === undefined || raw === null) return [];
    const origin = { file: PI_SERVERS_SOURCE, kind: 'user' as const, foreign: true };
    const entries: RawEntry[] = [];
    const add = (name: string, value: unknown, path: PathSegment[]) =>
      entries.push({
        name,
        raw: value,
        source: { file: PI_SERVERS_SOURCE, kind: 'user', keyPath: formatPath(path) },
        entryPath: path,
        dialect: 'native',
        foreign: true,
      });
    if (Array.isArray(raw)) {
      raw.forEach((item, index) => {
        if (!isPlainObject(item) || typeof item.name !== 'string') return;
        const { name, ...rest } = item;
        add(name, isPlainObject(rest.config) ? rest.config : rest, [index]);
      });
    } else if (isPlainObject(raw)) {
      if (isPlainObject(raw.mcpServers) || isPlainObject(raw['mcp-servers']))
        return entriesOf(raw, origin, this.diagnostics);
      for (const [name, value] of Object.entries(raw)) add(name, value, [name]);
    } else {
      this.diagnostics.push(
        diagnostic(
          'warning',
          'invalid-pi-servers',
          "Pi's list of MCP servers has an unexpected shape and is ignored.",
          {
            file: PI_SERVERS_SOURCE,
          },
        ),
      );
    }
    return entries;
  }

  private noteUntrusted(file: string, entries: RawEntry[]): void {
    for (const entry of entries)
      if (!this.untrusted.has(entry.name)) this.untrusted.set(entry.name, entry.source);
    const names = [...new Set(entries.map((entry) => entry.name))];
    const extras = this.untrustedExtras.has(file) ? ' Its settings and imports are not applied either.' : '';
    if (names.length === 0 && extras === '') return;
    const listed =
      names.length === 0
        ? ''
        : ` Servers not applied: ${names.slice(0, 10).join(', ')}${names.length > 10 ? `, … (${names.length} in all)` : ''}.`;
    this.diagnostics.push(
      diagnostic(
        'info',
        'untrusted-project',
        `${file} is not applied because the project is not trusted.${listed}${extras}`,
        {
          file,
          fix: TRUST_FIX,
        },
      ),
    );
  }

  private skip(name: string, source: SourceRef, reason: string, fix?: string): void {
    this.skipped.push({ name, source, reason, ...(fix === undefined ? {} : { fix }) });
  }

  private checkServerReferences(
    toonEncode: boolean | string[],
    direct: LoadedConfig['settings']['directToolsEnv'],
  ) {
    const known = new Set([...this.slots.keys(), ...this.skipped.map((entry) => entry.name)]);
    const mentioned: Array<[string, string]> = [];
    if (Array.isArray(toonEncode))
      for (const name of toonEncode) mentioned.push([name, 'settings.toonEncode']);
    if (direct?.kind === 'list') {
      for (const name of direct.servers) mentioned.push([name, DIRECT_TOOLS_ENV]);
      for (const { server } of direct.tools) mentioned.push([server, DIRECT_TOOLS_ENV]);
    }
    const reported = new Set<string>();
    for (const [name, where] of mentioned) {
      if (known.has(name) || reported.has(`${where}:${name}`)) continue;
      reported.add(`${where}:${name}`);
      this.diagnostics.push(
        diagnostic('warning', 'unknown-server', `${where} names server "${name}", which is not configured.`, {
          fix: 'Check the spelling against the server names in your config.',
        }),
      );
    }
  }
}

/** Whether `cwd` is one of the folders of the user's `trustedProjectFolders`, or below one. */
function listsFolder(value: unknown, cwd: string, homeDir: string): boolean {
  if (!Array.isArray(value)) return false;
  const project = resolve(cwd);
  return value.some((entry) => {
    if (typeof entry !== 'string' || entry.trim() === '') return false;
    const folder = resolve(homeDir, expandHome(entry.trim(), homeDir));
    const rel = relative(folder, project);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
}

/** Inside the project folder (and the project is not the home folder, where the user's own files live). */
function isInsideProject(file: string, cwd: string, homeDir: string): boolean {
  const project = resolve(cwd);
  const home = resolve(homeDir);
  if (home === project || home.startsWith(`${project}${sep}`)) return false;
  const rel = relative(project, resolve(file));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function pendingServer(entry: RawEntry, result: EntryResult, key: string): PendingServer {
  const fields = result.ok ? result.spec.fields : {};
  const raw = isPlainObject(entry.raw) ? entry.raw : {};
  const runs =
    fields.command !== undefined
      ? [fields.command, ...(fields.args ?? [])].map((word) => shellWord(String(word))).join(' ')
      : (fields.url ?? fields.serverUrl ?? fields.socket ?? JSON.stringify(raw).slice(0, 200));
  return {
    name: entry.name,
    source: entry.source,
    key,
    runs,
    envKeys: Object.keys(fields.env ?? {}),
    headerKeys: Object.keys(fields.headers ?? {}),
    inheritsEnv: fields.command !== undefined && fields.inheritEnv !== false,
    fields,
  };
}

/** The user's own servers a waiting project entry of the same name leaves running, said once. */
function keptOwn(pending: Map<string, PendingServer>, running: Set<string>): string {
  const kept = [...pending.values()].filter((p) => p.replaces !== undefined && running.has(p.name));
  if (kept.length === 0) return '';
  const which = kept.map((p) => `"${p.name}" from ${p.replaces}`).join(', ');
  return ` Your own ${kept.length === 1 ? 'server' : 'servers'} ${which} ${kept.length === 1 ? 'runs' : 'run'} meanwhile.`;
}

/** A word as a POSIX shell would need it quoted, for text the user reads or copies. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function looksPartial(entry: RawEntry): boolean {
  if (!isPlainObject(entry.raw) || entry.dialect !== 'native') return false;
  return !['command', 'url', 'serverUrl', 'type', 'socket'].some((key) =>
    Object.hasOwn(entry.raw as object, key),
  );
}

function isPartialResult(result: EntryResult): boolean {
  return result.ok ? result.spec.partial : result.partial;
}

function isEnabled(fields: ServerFields): boolean {
  return (fields.enabled ?? true) && !(fields.disabled ?? false);
}

function missingTransport(entry: RawEntry, detail: string, fix: string): Diagnostic {
  return diagnostic('error', 'missing-transport', `Server "${entry.name}": ${detail}.`, {
    file: entry.source.file,
    path: entry.source.keyPath,
    server: entry.name,
    fix,
  });
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
