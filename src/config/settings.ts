// The `settings` block: validated per key (a bad value costs only that key), merged user ← project,
// then turned into the Settings every consumer reads.

import { isAbsolute, join, resolve } from 'node:path';
import { isPlainObject } from '../plain-object.ts';
import { applyCompat, SETTINGS_COMPAT } from './compat.ts';
import { CAPTURE_STATS_DEFAULTS, defaultSettings, MINUTE_MS } from './defaults.ts';
import { diagnostic } from './diagnostics.ts';
import { expandHome, type InterpolationContext, interpolate } from './interpolate.ts';
import { formatPath, type PathSegment } from './json-path.ts';
import { CaptureStatsSchema, propertiesOf, SettingsSchema } from './schema.ts';
import { didYouMean } from './suggest.ts';
import type { Diagnostic, Settings, ToolPrefix } from './types.ts';
import { PROTOCOL_VERSION_MODES, type ProtocolVersionMode } from './types.ts';
import { checkValue } from './validate.ts';

/** Valid settings of one file, each remembering its file for later diagnostics. */
export type SettingsLayer = Map<string, { value: unknown; file: string; path: PathSegment[] }>;

/** A file's last good setting values by key, kept through a live edit (./last-good.ts). */
export type LastGoodSettings = (file: string) => ReadonlyMap<string, unknown> | undefined;

const SETTING_PROPS = propertiesOf(SettingsSchema);
const SETTING_KEYS = Object.keys(SETTING_PROPS);
const CAPTURE_KEYS = Object.keys(propertiesOf(CaptureStatsSchema));

/**
 * `lastGood`: a live edit's last good values of this file's settings; a value that no longer validates
 * takes its last good one instead of being ignored.
 */
export function readSettings(
  raw: unknown,
  file: string,
  diagnostics: Diagnostic[],
  lastGood?: ReadonlyMap<string, unknown>,
): SettingsLayer {
  const layer: SettingsLayer = new Map();
  if (raw === undefined) return layer;
  if (!isPlainObject(raw)) {
    const kept = lastGood !== undefined && lastGood.size > 0;
    if (kept) for (const [key, value] of lastGood) layer.set(key, { value, file, path: ['settings', key] });
    diagnostics.push(
      diagnostic(
        'error',
        'invalid-setting',
        `"settings" must be an object; ${kept ? 'its last good values are kept until it is fixed' : 'it is ignored'}.`,
        { file, path: 'settings' },
      ),
    );
    return layer;
  }
  const compat = applyCompat(raw, [SETTINGS_COMPAT]);
  for (const note of compat.notes) {
    diagnostics.push(
      diagnostic('info', 'compat-key', `Setting ${note.message}.`, {
        file,
        path: formatPath(['settings', note.key]),
      }),
    );
  }
  for (const [key, value] of Object.entries(compat.entry)) {
    const path: PathSegment[] = ['settings', key];
    const schema = Object.hasOwn(SETTING_PROPS, key) ? SETTING_PROPS[key] : undefined;
    if (schema === undefined) {
      diagnostics.push(
        diagnostic('warning', 'unknown-key', `Unknown setting "${key}" is ignored.`, {
          file,
          path: formatPath(path),
          fix: didYouMean(key, SETTING_KEYS),
        }),
      );
      continue;
    }
    const problem = checkValue(schema, value);
    if (problem !== undefined) {
      const where = formatPath([...path, ...problem.path]);
      const kept = lastGood?.has(key) === true;
      if (kept) layer.set(key, { value: lastGood?.get(key), file, path });
      diagnostics.push(
        diagnostic(
          'error',
          'invalid-setting',
          `${where} ${problem.message}; ${kept ? 'its last good value is kept until it is fixed' : 'this value is ignored'}.`,
          { file, path: where, fix: problem.fix },
        ),
      );
      continue;
    }
    if (key === 'captureStats' && isPlainObject(value)) {
      for (const inner of Object.keys(value)) {
        if (CAPTURE_KEYS.includes(inner)) continue;
        diagnostics.push(
          diagnostic('warning', 'unknown-key', `Unknown setting "captureStats.${inner}" is ignored.`, {
            file,
            path: formatPath([...path, inner]),
            fix: didYouMean(inner, CAPTURE_KEYS),
          }),
        );
      }
    }
    layer.set(key, { value, file, path });
  }
  return layer;
}

export function buildSettings(
  layers: SettingsLayer[],
  agentDir: string,
  context: InterpolationContext,
  diagnostics: Diagnostic[],
): Settings {
  const merged: SettingsLayer = new Map();
  for (const layer of layers) for (const [key, entry] of layer) merged.set(key, entry);
  const settings = defaultSettings();
  const get = (key: string) => merged.get(key)?.value;

  const toolPrefix = get('toolPrefix');
  if (toolPrefix !== undefined) settings.toolPrefix = toolPrefix as ToolPrefix;
  const protocolVersion = get('protocolVersion');
  if (PROTOCOL_VERSION_MODES.includes(protocolVersion as ProtocolVersionMode))
    settings.protocolVersion = protocolVersion as ProtocolVersionMode;
  const idle = get('idleTimeout');
  if (typeof idle === 'number') settings.idleTimeoutMs = Math.round(idle * MINUTE_MS);
  const toon = get('toonEncode');
  if (typeof toon === 'boolean' || Array.isArray(toon))
    settings.toonEncode = Array.isArray(toon) ? [...toon] : toon;
  const proxy = get('proxyTool');
  if (typeof proxy === 'boolean') settings.proxyTool = proxy;
  const direct = get('directTools');
  if (typeof direct === 'boolean') settings.directTools = direct;
  const requestTimeout = get('requestTimeoutMs');
  if (typeof requestTimeout === 'number') settings.requestTimeoutMs = requestTimeout;
  const approve = get('approveTools');
  if (typeof approve === 'boolean' || Array.isArray(approve))
    settings.approveTools = Array.isArray(approve) ? [...approve] : approve;
  const roots = get('roots');
  if (typeof roots === 'boolean') settings.roots = roots;
  else if (Array.isArray(roots))
    settings.roots = roots.map((folder) => resolve(context.cwd, expandHome(String(folder), context.homeDir)));
  for (const key of ['sampling', 'samplingAutoApprove', 'elicitation', 'sharedHost'] as const) {
    const value = get(key);
    if (typeof value === 'boolean') settings[key] = value;
  }
  const trace = get('trace');
  if (isPlainObject(trace)) {
    if (typeof trace.enabled === 'boolean') settings.trace.enabled = trace.enabled;
    if (typeof trace.file === 'string' && trace.file !== '') settings.trace.file = trace.file;
    if (typeof trace.maxBytes === 'number') settings.trace.maxBytes = trace.maxBytes;
    if (typeof trace.maxEvents === 'number') settings.trace.maxEvents = trace.maxEvents;
  }
  const limit = get('outputLimitBytes');
  if (typeof limit === 'number') settings.outputLimitBytes = limit;
  if (get('autoAuth') === true) settings.autoAuth = true;
  const oauthDir = get('oauthDir');
  // As pi-mcp-adapter resolves it: against the project, no interpolation.
  if (typeof oauthDir === 'string' && oauthDir.trim())
    settings.adapterSignIns = { oauthDir: resolve(context.cwd, oauthDir.trim()) };
  if (get('oauthCredentialStore') === 'encrypted-file')
    settings.adapterSignIns = { ...settings.adapterSignIns, oauthCredentialStore: 'encrypted-file' };

  const stats = merged.get('captureStats');
  if (stats !== undefined && stats.value !== false) {
    const options = isPlainObject(stats.value) ? stats.value : {};
    const flushDelayMs =
      typeof options.flushDelayMs === 'number' ? options.flushDelayMs : CAPTURE_STATS_DEFAULTS.flushDelayMs;
    let path = join(agentDir, CAPTURE_STATS_DEFAULTS.fileName);
    if (typeof options.path === 'string') {
      const result = interpolate(options.path, context, true);
      if (!result.ok) {
        const where = formatPath([...stats.path, 'path']);
        diagnostics.push(
          diagnostic(
            'error',
            'missing-variable',
            `${where} uses a variable that is not set; statistics stay off.`,
            {
              file: stats.file,
              path: where,
              fix: `Set the variable, or give a default with \${NAME:-value}.`,
            },
          ),
        );
        return settings;
      }
      path = isAbsolute(result.value) ? result.value : resolve(agentDir, result.value);
    }
    settings.captureStats = { path, flushDelayMs };
  }
  return settings;
}
