// The identity of a server entry in the metadata cache, computed the way pi-mcp-adapter 2.36 does, so
// both extensions read and reuse each other's `mcp-cache.json` entries. Over the entry *as written*
// (after dialect translation), with pi-mcp-adapter's own interpolation rules: `${VAR}`, `$env:VAR` and
// `{env:VAR}` (an unset variable reads as empty), a value starting with `!` kept as written (a command
// is never run to hash it), `!!` read as a literal `!`, and `~` expanded in `socket` and `cwd`.

import { createHash } from 'node:crypto';
import { join } from 'node:path';

/** The fields the hash covers, as written in the config file. */
export interface WrittenIdentity {
  command?: unknown;
  args?: unknown;
  socket?: unknown;
  cwd?: unknown;
  env?: unknown;
  headers?: unknown;
  url?: unknown;
  requestHeadersCommand?: unknown;
  auth?: unknown;
  protocolVersion?: unknown;
  bearerToken?: unknown;
  bearerTokenEnv?: unknown;
  exposeResources?: unknown;
  includeTools?: unknown;
  excludeTools?: unknown;
}

export interface HashEnvironment {
  env: Record<string, string | undefined>;
  homeDir: string;
}

export function adapterConfigHash(written: WrittenIdentity, environment: HashEnvironment): string {
  const { env } = environment;
  const vars = (text: string) =>
    text
      .replace(/\$\{(\w+)\}/g, (_, name: string) => env[name] ?? '')
      .replace(/\$env:(\w+)/g, (_, name: string) => env[name] ?? '')
      .replace(/\{env:(\w+)\}/g, (_, name: string) => env[name] ?? '');
  const secret = (value: string) =>
    value.startsWith('!!') ? vars(value.slice(1)) : value.startsWith('!') ? value : vars(value);
  const path = (value: unknown) => {
    if (typeof value !== 'string') return value;
    const text = vars(value);
    if (text === '~') return environment.homeDir;
    return text.startsWith('~/') || text.startsWith('~\\') ? join(environment.homeDir, text.slice(2)) : text;
  };
  const record = (value: unknown, each: (text: string) => string) =>
    isRecord(value)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? each(v) : v]))
      : value;
  const headersCommand = written.requestHeadersCommand;
  const bearerToken =
    typeof written.bearerToken === 'string'
      ? secret(written.bearerToken)
      : typeof written.bearerTokenEnv === 'string' && written.bearerTokenEnv !== ''
        ? env[written.bearerTokenEnv]
        : undefined;
  const identity: Record<string, unknown> = {
    command: written.command,
    args: written.args,
    socket: path(written.socket),
    env: record(written.env, secret),
    cwd: path(written.cwd),
    url: typeof written.url === 'string' ? vars(written.url) : written.url,
    headers: record(written.headers, secret),
    requestHeadersCommand: isRecord(headersCommand)
      ? {
          command: typeof headersCommand.command === 'string' ? vars(headersCommand.command) : undefined,
          args: Array.isArray(headersCommand.args)
            ? headersCommand.args.map((a) => (typeof a === 'string' ? vars(a) : a))
            : undefined,
          env: record(headersCommand.env, secret),
          timeoutMs: headersCommand.timeoutMs,
        }
      : undefined,
    auth: written.auth,
    protocolVersion: written.protocolVersion,
    bearerToken,
    bearerTokenEnv: written.bearerTokenEnv,
    exposeResources: written.exposeResources,
    includeTools: written.includeTools,
    excludeTools: written.excludeTools,
  };
  return createHash('sha256').update(adapterStableText(identity)).digest('hex');
}

/** pi-mcp-adapter's stable text: keys sorted at every level, an undefined value written `undefined`. */
export function adapterStableText(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(adapterStableText).join(',')}]`;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${adapterStableText(object[key])}`).join(',')}}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
