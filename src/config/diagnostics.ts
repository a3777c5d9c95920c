// Building and printing diagnostics. Codes are stable (docs/config.md lists them); messages are for
// people and never contain secret values.

import type { Diagnostic, DiagnosticLevel } from './types.ts';

/** Every diagnostic the loader emits: code → level and meaning (rendered into docs/config.md). */
export const DIAGNOSTIC_CODES = {
  'invalid-json': ['error', 'A file is not valid JSON/JSONC; that file is ignored, the others load.'],
  'invalid-toml': ['error', 'A TOML file (Codex) does not parse; that file is ignored.'],
  'read-error': ['error', 'A file exists but cannot be read (permissions, a directory).'],
  'config-not-found': ['warning', 'The file given with `--mcp-config` does not exist.'],
  'invalid-file': ['error', 'The top level, or a server map such as `mcpServers`, is not an object.'],
  'duplicate-key': ['warning', 'The same key appears twice in one JSON object; the last one is used.'],
  'duplicate-server': ['warning', 'A name is defined in two server maps of one file; the first is used.'],
  'unknown-key': [
    'warning',
    'A key means nothing here (typo?); it is ignored. Info level in other clients’ files.',
  ],
  'ignored-key': ['warning', 'A known key does not apply (e.g. `headers` on a stdio server) and is ignored.'],
  'invalid-server': ['error', 'A server key has a wrong value; the server is skipped.'],
  'command-and-url': [
    'error',
    'A server has both `command` and `url` (or a `type` that contradicts them); skipped.',
  ],
  'missing-transport': [
    'error',
    'A server has neither `command` nor `url` (and overrides nothing); skipped.',
  ],
  'conflicting-keys': [
    'warning',
    'Two keys say the same thing differently (`enabled`/`disabled`, `url`/`serverUrl`).',
  ],
  'compat-key': [
    'info',
    'A pi-mcp-adapter or Pi built-in key (or value) without a native counterpart: mapped or dropped, as the message says (see the compatibility table).',
  ],
  'vscode-inputs': ['info', 'VS Code `inputs` (prompted values) are ignored.'],
  'invalid-imports': ['error', '`imports` is not a list; it is ignored.'],
  'unknown-import': ['warning', 'An `imports` entry names no known client; it is ignored.'],
  'import-shadowed': ['info', 'An imported server is not added because its name is already defined.'],
  'server-overridden': ['info', 'A project file replaces or adjusts a server defined by a lower source.'],
  'project-override-ignored': [
    'warning',
    'A project entry without `command`/`url` tries to change a key other than `enabled`, `exposure`, `toolExposure` of a server defined elsewhere; that key is ignored.',
  ],
  'project-setting-ignored': [
    'warning',
    'A project setting would loosen a safety setting of the user (approvals, sampling, elicitation, sign-in) or names a file; it is ignored.',
  ],
  'project-server-not-allowed': [
    'warning',
    'Servers of project files are not started because the user has not allowed them for this project yet (docs/security.md).',
  ],
  'untrusted-project': ['info', 'Project files are not applied because the project is not trusted.'],
  'invalid-server-name': ['error', 'A server name is empty.'],
  'missing-variable': [
    'error',
    'A variable reference (or `bearerTokenEnv`) names an unset variable; the server is skipped.',
  ],
  'unsupported-variable': [
    'error',
    'A variable form that cannot be resolved here (e.g. VS Code `input:` variables); skipped.',
  ],
  'invalid-ca-file': [
    'error',
    '`caFile` is missing, unreadable or holds no PEM certificate; the server is skipped.',
  ],
  'invalid-url': ['error', '`url` is not an http(s) URL after interpolation; the server is skipped.'],
  'invalid-setting': [
    'error',
    'A setting has a wrong value; its default (or the user file’s value) is used, or, after an edit while a session runs, its last good value.',
  ],
  'invalid-direct-tools-env': [
    'warning',
    '`MCP_DIRECT_TOOLS` has an entry that is not `server` or `server/tool`.',
  ],
  'unknown-server': [
    'warning',
    '`MCP_DIRECT_TOOLS` or `settings.toonEncode` names a server that is not configured.',
  ],
  'invalid-pi-servers': ['warning', 'Pi’s own server list has a shape that cannot be read.'],
  'internal-error': ['error', 'A bug in the loader; the affected entry (or everything) is skipped.'],
} as const satisfies Record<string, readonly [DiagnosticLevel, string]>;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

export interface DiagnosticPlace {
  file?: string;
  path?: string;
  server?: string;
  fix?: string;
}

export function diagnostic(
  level: DiagnosticLevel,
  code: DiagnosticCode,
  message: string,
  place: DiagnosticPlace = {},
): Diagnostic {
  const out: Diagnostic = { level, code, message };
  if (place.file !== undefined) out.file = place.file;
  if (place.path !== undefined && place.path !== '') out.path = place.path;
  if (place.server !== undefined) out.server = place.server;
  if (place.fix !== undefined) out.fix = place.fix;
  return out;
}

/** One line for /mcp, the CLI and the log: `error ~/.pi/agent/mcp.json mcpServers.x.lifecycle: … Fix.` */
export function formatDiagnostic(d: Diagnostic): string {
  const where = [d.file, d.path].filter((part) => part !== undefined && part !== '').join(' ');
  const fix = d.fix === undefined ? '' : ` ${d.fix}`;
  return `${d.level}${where === '' ? '' : ` ${where}`}: ${d.message}${fix}`;
}
