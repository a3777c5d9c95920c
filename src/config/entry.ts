// One server entry, as written in one file → a validated spec (not yet interpolated or defaulted),
// or the reason it is invalid. Every problem becomes a diagnostic at the key the user wrote.

import { isPlainObject } from '../plain-object.ts';
import { applyCompat, SERVER_COMPAT, SERVER_VALUE_COMPAT } from './compat.ts';
import { type DiagnosticCode, diagnostic } from './diagnostics.ts';
import { type Dialect, dialectKeys, FOREIGN_KEYS, translate } from './dialects.ts';
import { formatPath, type PathSegment } from './json-path.ts';
import type { Schema } from './json-schema.ts';
import { OAuthSchema, propertiesOf, ServerSchema } from './schema.ts';
import { didYouMean } from './suggest.ts';
import type { Diagnostic, ServerFields, SourceRef } from './types.ts';
import { checkValue } from './validate.ts';

export interface ServerSpec {
  name: string;
  source: SourceRef;
  /** Where the entry sits in its file. */
  entryPath: PathSegment[];
  fields: ServerFields;
  /** The entry as written (after dialect translation, before compatibility mapping): the cache identity. */
  written: Record<string, unknown>;
  /** native key → key as written (differs for Codex and OpenCode entries). */
  origin: Record<string, string>;
  /** No command, url or type: a Pi-style override of enabled / exposure / toolExposure. */
  partial: boolean;
  /** The override entry that last set `enabled`, when not `source`. */
  enabledBy?: SourceRef;
}

export type EntryResult =
  | { ok: true; spec: ServerSpec; diagnostics: Diagnostic[] }
  | { ok: false; partial: boolean; reason: string; fix?: string; diagnostics: Diagnostic[] };

export interface EntryInput {
  name: string;
  raw: unknown;
  source: SourceRef;
  entryPath: PathSegment[];
  dialect: Dialect;
  env: Record<string, string | undefined>;
  /** Files of other clients: keys we do not know are theirs, noted at info level. */
  foreign: boolean;
}

const SERVER_PROPS = propertiesOf(ServerSchema);
const SERVER_KEYS = Object.keys(SERVER_PROPS);
const OAUTH_KEYS = Object.keys(propertiesOf(OAuthSchema));

const TRANSPORT_KEYS = ['command', 'url', 'serverUrl', 'type', 'socket'];
const STDIO_ONLY = ['args', 'env', 'cwd'];
const HTTP_ONLY = [
  'headers',
  'caFile',
  'requestHeadersCommand',
  'auth',
  'bearerToken',
  'bearerTokenEnv',
  'oauth',
];

export function validateEntry(input: EntryInput): EntryResult {
  const { name, source } = input;
  const diagnostics: Diagnostic[] = [];
  const errors: Array<{ message: string; fix?: string }> = [];
  const file = source.file;
  const at = (...rest: PathSegment[]) => formatPath([...input.entryPath, ...rest]);
  /** `detail` completes "Server "<name>": …" and, for errors, "invalid configuration: …". */
  const report = (
    level: Diagnostic['level'],
    code: DiagnosticCode,
    detail: string,
    path: string,
    fix?: string,
  ): void => {
    diagnostics.push(
      diagnostic(level, code, `Server "${name}": ${detail}.`, { file, path, server: name, fix }),
    );
    if (level === 'error') errors.push({ message: detail, ...(fix === undefined ? {} : { fix }) });
  };

  if (!isPlainObject(input.raw)) {
    report('error', 'invalid-server', 'the entry must be an object with "command" or "url"', at());
    return fail(false, errors, diagnostics);
  }

  const translated = translate(input.raw, input.dialect, { env: input.env });
  const originOf = (key: string) => translated.origin[key] ?? key;
  for (const note of translated.errors) {
    report('error', note.code, `${note.key} ${note.message}`, at(note.key), note.fix);
  }
  for (const note of translated.notes) report(note.level, note.code, note.message, at(note.key), note.fix);
  const compat = applyCompat(translated.entry, [SERVER_VALUE_COMPAT, SERVER_COMPAT]);
  for (const note of compat.notes)
    report(note.level ?? 'info', 'compat-key', note.message, at(originOf(note.key)));
  for (const key of translated.unknownKeys) {
    const fix = didYouMean(key, dialectKeys(input.dialect));
    report(
      input.foreign ? 'info' : 'warning',
      'unknown-key',
      `unknown key "${key}" is ignored`,
      at(key),
      fix,
    );
  }

  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(compat.entry)) {
    const schema: Schema | undefined = Object.hasOwn(SERVER_PROPS, key) ? SERVER_PROPS[key] : undefined;
    if (schema === undefined) {
      unknownNativeKey(key, input, report, at);
      continue;
    }
    const problem = checkValue(schema, value);
    if (problem !== undefined) {
      const where = formatPath([originOf(key), ...problem.path]);
      report(
        'error',
        'invalid-server',
        `${where} ${problem.message}`,
        at(originOf(key), ...problem.path),
        problem.fix,
      );
      continue;
    }
    fields[key] = value;
  }
  const typed = fields as ServerFields;
  const partial = !TRANSPORT_KEYS.some((key) => Object.hasOwn(compat.entry, key));

  checkOAuth(typed, originOf, report, at, input.foreign);
  checkAliases(typed, originOf, report, at);
  if (!partial && errors.length === 0) checkTransport(typed, originOf, report, at);

  if (errors.length > 0) return fail(partial, errors, diagnostics);
  return {
    ok: true,
    spec: {
      name,
      source,
      entryPath: input.entryPath,
      fields: typed,
      written: translated.entry,
      origin: translated.origin,
      partial,
    },
    diagnostics,
  };
}

type Report = (
  level: Diagnostic['level'],
  code: DiagnosticCode,
  message: string,
  path: string,
  fix?: string,
) => void;
type At = (...rest: PathSegment[]) => string;

function fail(
  partial: boolean,
  errors: Array<{ message: string; fix?: string }>,
  diagnostics: Diagnostic[],
): EntryResult {
  const first = errors[0] ?? { message: 'invalid entry' };
  return {
    ok: false,
    partial,
    reason: `invalid configuration: ${first.message}`,
    ...(first.fix === undefined ? {} : { fix: first.fix }),
    diagnostics,
  };
}

function unknownNativeKey(key: string, input: EntryInput, report: Report, at: At): void {
  if (key === 'envFile') {
    report(
      'warning',
      'unknown-key',
      '"envFile" is not supported; the variables in that file are not passed to the server',
      at(key),
      `Copy the variables into "env" (values may use \${VAR}).`,
    );
    return;
  }
  const foreign = Object.hasOwn(FOREIGN_KEYS, key) ? FOREIGN_KEYS[key] : undefined;
  if (foreign !== undefined) {
    report('info', 'ignored-key', `"${key}" is ignored (${foreign})`, at(key));
    return;
  }
  report(
    input.foreign ? 'info' : 'warning',
    'unknown-key',
    `unknown key "${key}" is ignored`,
    at(key),
    didYouMean(key, SERVER_KEYS),
  );
}

function checkOAuth(
  fields: ServerFields,
  originOf: (k: string) => string,
  report: Report,
  at: At,
  foreign: boolean,
) {
  const oauth = fields.oauth;
  if (oauth === undefined) return;
  for (const key of Object.keys(oauth)) {
    if (!OAUTH_KEYS.includes(key)) {
      report(
        foreign ? 'info' : 'warning',
        'unknown-key',
        `unknown key "oauth.${key}" is ignored`,
        at(originOf('oauth'), key),
        didYouMean(key, OAUTH_KEYS),
      );
    }
  }
  if (
    oauth.grantType === 'client_credentials' &&
    (oauth.clientId === undefined ||
      (oauth.clientSecret === undefined &&
        oauth.privateKey === undefined &&
        oauth.privateKeyFile === undefined))
  ) {
    report(
      'error',
      'invalid-server',
      'oauth.grantType "client_credentials" needs oauth.clientId and oauth.clientSecret (or oauth.privateKey / oauth.privateKeyFile)',
      at(originOf('oauth')),
      `Add clientId and clientSecret (e.g. "clientSecret": "\${MY_CLIENT_SECRET}"), or a private key for private_key_jwt.`,
    );
  }
  checkJwtBearer(oauth, report, at(originOf('oauth')));
}

function checkJwtBearer(oauth: Record<string, unknown>, report: Report, where: string) {
  if (oauth.grantType !== 'jwt-bearer') return;
  const identity = oauth.identityToken;
  const sources =
    identity && typeof identity === 'object'
      ? ['env', 'file', 'command'].filter((key) => key in identity).length
      : 0;
  if (sources !== 1) {
    report(
      'error',
      'invalid-server',
      'oauth.grantType "jwt-bearer" needs oauth.identityToken with exactly one of env, file or command',
      where,
      'Add e.g. "identityToken": { "file": "/var/run/secrets/tokens/mcp" }.',
    );
  }
}

function checkAliases(fields: ServerFields, originOf: (k: string) => string, report: Report, at: At) {
  if (fields.enabled !== undefined && fields.disabled !== undefined && fields.enabled === fields.disabled) {
    report(
      'warning',
      'conflicting-keys',
      '"enabled" and "disabled" disagree; the server is treated as disabled',
      at(originOf('disabled')),
      'Keep only "enabled".',
    );
  }
  if (fields.url !== undefined && fields.serverUrl !== undefined) {
    report(
      'warning',
      'conflicting-keys',
      'both "url" and "serverUrl" are set; "url" is used',
      at('serverUrl'),
      'Keep only "url".',
    );
  }
  if (fields.timeout !== undefined && fields.requestTimeoutMs !== undefined) {
    report(
      'info',
      'conflicting-keys',
      'both "timeout" and "requestTimeoutMs" are set; "requestTimeoutMs" is used',
      at('timeout'),
    );
  }
}

function checkTransport(fields: ServerFields, originOf: (k: string) => string, report: Report, at: At) {
  const url = fields.url ?? fields.serverUrl;
  const urlKey = fields.url !== undefined ? originOf('url') : 'serverUrl';
  if (fields.command !== undefined && url !== undefined) {
    report(
      'error',
      'command-and-url',
      `both "${originOf('command')}" (stdio) and "${urlKey}" (http) are set; a server uses one transport`,
      at(),
      'Keep "command" for a local process or "url" for a remote server, and remove the other.',
    );
    return;
  }
  if (fields.socket !== undefined) {
    checkSocket(fields, originOf, report, at);
    return;
  }
  const type = fields.type;
  const wantsUrl = type !== undefined && type !== 'stdio';
  if (type === 'stdio' && fields.command === undefined) {
    report(
      'error',
      'missing-transport',
      'type is "stdio" but "command" is missing',
      at(),
      'Add "command" (and "args").',
    );
    return;
  }
  if (wantsUrl && url === undefined) {
    report('error', 'missing-transport', `type is "${type}" but "url" is missing`, at(), 'Add "url".');
    return;
  }
  if (type === 'stdio' && url !== undefined) {
    report(
      'error',
      'command-and-url',
      `type is "stdio" but "${urlKey}" is set`,
      at(),
      'Remove "url", or set type "http".',
    );
    return;
  }
  if (wantsUrl && fields.command !== undefined) {
    report(
      'error',
      'command-and-url',
      `type is "${type}" but "command" is set`,
      at(),
      'Remove "command", or set type "stdio".',
    );
    return;
  }
  if (fields.command === undefined && url === undefined) {
    report(
      'error',
      'missing-transport',
      'neither "command" (stdio) nor "url" (http/sse) is set',
      at(),
      'Add "command" for a local server or "url" for a remote one.',
    );
    return;
  }
  if (fields.auth === 'bearer' && fields.bearerToken === undefined && fields.bearerTokenEnv === undefined) {
    report(
      'error',
      'invalid-server',
      'auth is "bearer" but neither "bearerToken" nor "bearerTokenEnv" is set',
      at(originOf('auth')),
      'Add "bearerTokenEnv": "NAME_OF_THE_VARIABLE".',
    );
  }
  const stdio = fields.command !== undefined;
  const misplaced = (stdio ? HTTP_ONLY : STDIO_ONLY).filter(
    (key) => (fields as Record<string, unknown>)[key] !== undefined,
  );
  for (const key of misplaced) {
    report(
      'warning',
      'ignored-key',
      `"${originOf(key)}" does not apply to ${stdio ? 'a stdio' : 'an http/sse'} server and is ignored`,
      at(originOf(key)),
    );
  }
}

/** pi-mcp-adapter: a server names exactly one of command, url and socket. */
function checkSocket(fields: ServerFields, originOf: (k: string) => string, report: Report, at: At) {
  const other = ['command', 'url', 'serverUrl', 'type'].find(
    (key) => (fields as Record<string, unknown>)[key] !== undefined,
  );
  if (other !== undefined) {
    report(
      'error',
      'command-and-url',
      `both "socket" and "${originOf(other)}" are set; a server uses one transport`,
      at(),
      'Keep "socket" for an rmcp-mux service socket, or remove it to use the other.',
    );
    return;
  }
  for (const key of [...STDIO_ONLY, ...HTTP_ONLY]) {
    if ((fields as Record<string, unknown>)[key] === undefined) continue;
    report(
      'warning',
      'ignored-key',
      `"${originOf(key)}" does not apply to a socket server and is ignored`,
      at(originOf(key)),
    );
  }
}
