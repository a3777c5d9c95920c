// The key tables of docs/config.md, rendered from the schemas, the dialect tables and the import
// locations, so the documentation cannot drift from what the loader accepts
// (test/unit/config/reference.test.ts compares them).

import {
  type CompatKey,
  FOREIGN_CONFIG_KEYS,
  SERVER_COMPAT,
  SERVER_VALUE_COMPAT,
  SETTINGS_COMPAT,
  TOP_LEVEL_COMPAT,
} from './compat.ts';
import { DIAGNOSTIC_CODES } from './diagnostics.ts';
import { CODEX_RULES, OPENCODE_RULES } from './dialects.ts';
import { importLocations } from './imports.ts';
import type { Schema } from './json-schema.ts';
import {
  CaptureStatsSchema,
  FileSchema,
  IMPORT_NAMES,
  OAuthSchema,
  propertiesOf,
  ServerSchema,
  SettingsSchema,
  TraceSettingsSchema,
} from './schema.ts';
import { isStringish } from './validate.ts';

export const REFERENCE_START = '<!-- generated:config-reference:start -->';
export const REFERENCE_END = '<!-- generated:config-reference:end -->';

export function renderConfigReference(): string {
  return [
    '### Top-level keys',
    '',
    keyTable(FileSchema),
    '### Server keys',
    '',
    keyTable(ServerSchema),
    '### `oauth` keys',
    '',
    keyTable(OAuthSchema),
    '### `settings` keys',
    '',
    keyTable(SettingsSchema),
    '### `settings.captureStats` object',
    '',
    keyTable(CaptureStatsSchema),
    '### `settings.trace` object',
    '',
    keyTable(TraceSettingsSchema),
    '### Codex keys (`[mcp_servers.<name>]`)',
    '',
    ruleTable('Codex key', CODEX_RULES),
    '### OpenCode keys (`"mcp": { "<name>": … }`)',
    '',
    ruleTable('OpenCode key', OPENCODE_RULES),
    '### Keys of pi-mcp-adapter 2.36 and Pi 1.5 built-in MCP',
    '',
    'Every key either of them accepts, where it sits, who accepts it and what we do with it. None makes',
    'a server invalid; a key that is mapped or dropped gets one `compat-key` info diagnostic at startup.',
    '',
    compatTable(),
    '### Import locations',
    '',
    importTable(),
    '### Diagnostics',
    '',
    diagnosticTable(),
  ].join('\n');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function keyTable(schema: Schema): string {
  const rows = Object.entries(propertiesOf(schema)).map(([key, property]) => {
    const n = property;
    return `| \`${key}\` | ${cell(typeLabel(n))} | ${cell(defaultLabel(n))} | ${cell(n.description ?? '')} |`;
  });
  return ['| Key | Type | Default | Meaning |', '|---|---|---|---|', ...rows, ''].join('\n');
}

function ruleTable(title: string, rules: Record<string, { native: string }>): string {
  const rows = Object.entries(rules).map(([key, rule]) => `| \`${key}\` | ${cell(rule.native)} |`);
  return [`| ${title} | Read as |`, '|---|---|', ...rows, ''].join('\n');
}

/** What we do with a key of the other two: our own schema's meaning, or the compatibility rule. */
export function compatDisposition(
  section: keyof typeof FOREIGN_CONFIG_KEYS,
  key: string,
): string | undefined {
  const sections = {
    server: { ours: propertiesOf(ServerSchema), rules: [SERVER_VALUE_COMPAT, SERVER_COMPAT] },
    oauth: { ours: propertiesOf(OAuthSchema), rules: [] },
    settings: { ours: propertiesOf(SettingsSchema), rules: [SETTINGS_COMPAT] },
    topLevel: { ours: propertiesOf(FileSchema), rules: [TOP_LEVEL_COMPAT] },
  } satisfies Record<string, { ours: Record<string, Schema>; rules: Array<Record<string, CompatKey>> }>;
  const { ours, rules } = sections[section];
  const rule = rules.map((table) => (Object.hasOwn(table, key) ? table[key] : undefined)).find(Boolean);
  const native = Object.hasOwn(ours, key);
  if (native && rule) return `honoured; ${rule.does}`;
  if (rule) return rule.does;
  if (native) return 'honoured, same meaning';
  return undefined;
}

function compatTable(): string {
  const rows: string[] = [];
  const where = { server: 'server', oauth: '`oauth`', settings: '`settings`', topLevel: 'top level' };
  for (const section of Object.keys(FOREIGN_CONFIG_KEYS) as Array<keyof typeof FOREIGN_CONFIG_KEYS>) {
    const bySource = FOREIGN_CONFIG_KEYS[section];
    const adapter: readonly string[] = bySource['pi-mcp-adapter'];
    const pi: readonly string[] = bySource.Pi;
    for (const key of [...new Set([...adapter, ...pi])]) {
      const from = [adapter.includes(key) ? 'pi-mcp-adapter' : '', pi.includes(key) ? 'Pi' : '']
        .filter(Boolean)
        .join(', ');
      const does = compatDisposition(section, key) ?? 'not handled';
      rows.push(`| \`${key}\` | ${where[section]} | ${from} | ${cell(does)} |`);
    }
  }
  return ['| Key | Where | From | What we do |', '|---|---|---|---|', ...rows, ''].join('\n');
}

function importTable(): string {
  const rows: string[] = [];
  const platforms: Array<[string, NodeJS.Platform]> = [
    ['Linux', 'linux'],
    ['macOS', 'darwin'],
    ['Windows', 'win32'],
  ];
  for (const client of IMPORT_NAMES) {
    const seen = new Map<string, string[]>();
    for (const [label, platform] of platforms) {
      const context = { homeDir: '~', cwd: '<project>', env: { APPDATA: '%APPDATA%' }, platform };
      for (const location of importLocations(client, context)) {
        const shown = `\`${location.file.replace(/\\/g, '/')}\`${location.project ? ' (project, needs consent)' : ''}${location.claudeLocalScope ? ' (+ `projects[<project>].mcpServers`)' : ''}`;
        seen.set(shown, [...(seen.get(shown) ?? []), label]);
      }
    }
    const files = [...seen].map(([shown, labels]) =>
      labels.length === platforms.length ? shown : `${shown} (${labels.join(', ')})`,
    );
    rows.push(`| \`${client}\` | ${cell(files.join('<br>'))} |`);
  }
  return ['| Import | Files, first match of a name wins |', '|---|---|', ...rows, ''].join('\n');
}

function diagnosticTable(): string {
  const rows = Object.entries(DIAGNOSTIC_CODES).map(
    ([code, [level, meaning]]) => `| \`${code}\` | ${level} | ${cell(meaning)} |`,
  );
  return ['| Code | Level | Meaning |', '|---|---|---|', ...rows, ''].join('\n');
}

function typeLabel(schema: Schema): string {
  if (schema.anyOf !== undefined) {
    if (isStringish(schema)) return 'string';
    return schema.anyOf.map(typeLabel).join(' | ');
  }
  if (schema.enum !== undefined) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  switch (schema.type) {
    case 'array':
      if (schema.items === undefined) return 'array';
      return schema.items.enum !== undefined ||
        (schema.items.anyOf !== undefined && !isStringish(schema.items))
        ? `(${typeLabel(schema.items)})[]`
        : `${typeLabel(schema.items)}[]`;
    case 'object': {
      const values = Object.values(schema.patternProperties ?? {})[0];
      if (values !== undefined) return `{ [name]: ${typeLabel(values)} }`;
      return 'object';
    }
    case 'integer':
    case 'number': {
      const bounds: string[] = [];
      if (schema.exclusiveMinimum !== undefined) bounds.push(`> ${schema.exclusiveMinimum}`);
      if (schema.minimum !== undefined) bounds.push(`≥ ${schema.minimum}`);
      if (schema.maximum !== undefined) bounds.push(`≤ ${schema.maximum}`);
      return bounds.length === 0 ? schema.type : `${schema.type} ${bounds.join(', ')}`;
    }
    case undefined:
      return 'any';
    default:
      return String(schema.type);
  }
}

function defaultLabel(schema: Schema): string {
  if (schema['x-default'] !== undefined) return schema['x-default'];
  if (schema.default !== undefined) return `\`${JSON.stringify(schema.default)}\``;
  return '—';
}
