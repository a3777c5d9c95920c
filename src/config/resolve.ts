// A validated spec → the ServerDefinition everyone else uses: variables interpolated, aliases folded,
// defaults applied (from defaults.ts, nowhere else). A variable that is not set skips the server.

import { isAbsolute, resolve } from 'node:path';
import { setOwn } from '../plain-object.ts';
import { isSecretValue } from '../redact/key-policy.ts';
import { type CommandValue, valueForm } from './command-values.ts';
import { adapterConfigHash } from './config-hash.ts';
import { MINUTE_MS, OAUTH_DEFAULTS, SERVER_DEFAULTS } from './defaults.ts';
import { diagnostic } from './diagnostics.ts';
import type { ServerSpec } from './entry.ts';
import { type InterpolationContext, interpolate } from './interpolate.ts';
import { formatPath, type PathSegment } from './json-path.ts';
import type {
  Diagnostic,
  Exposure,
  OAuthConfig,
  ServerDefinition,
  ServerFields,
  Settings,
  Transport,
} from './types.ts';

export type Resolved =
  | { ok: true; definition: ServerDefinition; diagnostics: Diagnostic[] }
  | { ok: false; reason: string; fix?: string; diagnostics: Diagnostic[] };

export function resolveServer(spec: ServerSpec, settings: Settings, context: InterpolationContext): Resolved {
  const { fields, name } = spec;
  const diagnostics: Diagnostic[] = [];
  const failures: Array<{ reason: string; fix?: string }> = [];
  const originOf = (key: string) => spec.origin[key] ?? key;
  const place = (segments: PathSegment[]) => ({
    file: spec.source.file,
    path: formatPath([...spec.entryPath, ...segments]),
    server: name,
  });

  /** Values of ${VAR}s that the one key policy calls secret, wherever they were put (URL path, args…). */
  const secretValues = new Set<string>();
  const text = (value: string, key: string, sub: PathSegment[] = [], home = false): string | undefined => {
    const result = interpolate(value, context, home);
    if (result.ok) {
      for (const variable of result.variables)
        if (isSecretValue(variable.name, variable.value)) secretValues.add(variable.value);
      return result.value;
    }
    const where = formatPath([originOf(key), ...sub]);
    for (const problem of result.problems) {
      if (problem.kind === 'missing') {
        const message = `Server "${name}": \${${problem.variable}} in ${where} is not set, so the server is skipped rather than started with an empty value.`;
        const fix = `Set ${problem.variable} in the environment, or give a default: \${${problem.variable}:-value}.`;
        diagnostics.push(
          diagnostic('error', 'missing-variable', message, { ...place([originOf(key), ...sub]), fix }),
        );
        failures.push({
          reason: `environment variable ${problem.variable} (used in ${where}) is not set`,
          fix,
        });
      } else {
        const message = `Server "${name}": ${problem.expression} in ${where} cannot be resolved here, so the server is skipped.`;
        const fix = problem.expression.startsWith(`\${input:`)
          ? `VS Code's prompted inputs are not available: put the value in an environment variable and write \${NAME}.`
          : `Use \${NAME}, \${NAME:-default}, \${env:NAME}, $env:NAME or {env:NAME}; write $\${ for a literal \${.`;
        diagnostics.push(
          diagnostic('error', 'unsupported-variable', message, { ...place([originOf(key), ...sub]), fix }),
        );
        failures.push({ reason: `${problem.expression} in ${where} cannot be resolved`, fix });
      }
    }
    return undefined;
  };
  const commandValues: CommandValue[] = [];
  /** `text` for values that may run a command (`!command`, see ./command-values.ts): undefined then. */
  const secretText: Text = (value, key, sub = []) => {
    const form = valueForm(value);
    if (form.kind === 'text') return text(form.text, key, sub);
    const field = key as CommandValue['field'];
    const keyPath = formatPath([...spec.entryPath, originOf(key), ...sub]);
    const entryKey = sub[0];
    commandValues.push({
      field,
      ...(typeof entryKey === 'string' ? { key: entryKey } : {}),
      command: form.command,
      keyPath,
    });
    return undefined;
  };
  const map = (values: Record<string, string | number | boolean> | undefined, key: 'env' | 'headers') => {
    const out: Record<string, string> = {};
    for (const [entryKey, value] of Object.entries(values ?? {})) {
      const resolved = secretText(String(value), key, [entryKey]);
      if (resolved !== undefined) setOwn(out, entryKey, resolved);
    }
    return out;
  };

  const transport = transportOf(fields);
  const stdio = transport === 'stdio';
  const definition: ServerDefinition = {
    name,
    source: spec.source,
    transport,
    args: [],
    env: {},
    headers: {},
    lifecycle: fields.lifecycle ?? SERVER_DEFAULTS.lifecycle,
    idleTimeoutMs: idleTimeoutMs(fields, settings),
    startupTimeoutMs: fields.startupTimeoutMs ?? SERVER_DEFAULTS.startupTimeoutMs,
    requestTimeoutMs:
      fields.requestTimeoutMs ??
      (fields.timeout === undefined
        ? settings.requestTimeoutMs
        : Math.max(1, Math.round(fields.timeout * 1000))),
    inheritEnv: fields.inheritEnv ?? SERVER_DEFAULTS.inheritEnv,
    healthCheckMs: fields.healthCheckMs ?? SERVER_DEFAULTS.healthCheckMs,
    exposeResources: fields.exposeResources ?? SERVER_DEFAULTS.exposeResources,
    directTools: fields.directTools ?? settings.directTools,
    excludeTools: unique([...(fields.excludeTools ?? []), ...(fields.disabledTools ?? [])]),
    exposure: exposureOf(fields.exposure) ?? SERVER_DEFAULTS.exposure,
    toolExposure: Object.entries(fields.toolExposure ?? {}).map(([pattern, exposure]) => ({
      pattern,
      exposure: exposureOf(exposure) ?? SERVER_DEFAULTS.exposure,
    })),
    debug: fields.debug ?? SERVER_DEFAULTS.debug,
    roots: typeof fields.roots === 'boolean' ? fields.roots : settings.roots,
    protocolVersion: fields.protocolVersion ?? settings.protocolVersion,
    configHash: adapterConfigHash(spec.written, context),
  };
  if (fields.description !== undefined) definition.description = fields.description;
  if (fields.includeTools !== undefined) definition.includeTools = [...fields.includeTools];
  const approveTools = fields.approveTools ?? settings.approveTools;
  if (approveTools !== false) definition.approveTools = approveTools;
  if (Array.isArray(fields.roots)) {
    definition.roots = fields.roots.flatMap((folder, index) => {
      const path = text(String(folder), 'roots', [index], true);
      return path === undefined ? [] : [isAbsolute(path) ? path : resolve(context.cwd, path)];
    });
  }
  if (fields.toolPrefix !== undefined) definition.toolPrefix = fields.toolPrefix;
  if (fields.share !== undefined) definition.share = fields.share;
  if (fields.trace ?? settings.trace.enabled) definition.trace = true;
  if (fields.searchKeywords !== undefined && Object.keys(fields.searchKeywords).length > 0)
    definition.searchKeywords = fields.searchKeywords;

  if (transport === 'socket') {
    const socket = text(fields.socket ?? '', 'socket', [], true);
    if (socket !== undefined) definition.socket = isAbsolute(socket) ? socket : resolve(context.cwd, socket);
  } else if (stdio) {
    const command = text(fields.command ?? '', 'command', [], true);
    if (command !== undefined) definition.command = command;
    definition.args = (fields.args ?? []).flatMap((arg, index) => {
      const resolved = text(String(arg), 'args', [index], true);
      return resolved === undefined ? [] : [resolved];
    });
    definition.env = map(fields.env, 'env');
    if (fields.cwd !== undefined) {
      const cwd = text(fields.cwd, 'cwd', [], true);
      if (cwd !== undefined) definition.cwd = isAbsolute(cwd) ? cwd : resolve(context.cwd, cwd);
    }
  } else {
    const urlKey = fields.url !== undefined ? 'url' : 'serverUrl';
    const url = text(fields.url ?? fields.serverUrl ?? '', urlKey);
    if (url !== undefined) {
      if (isHttpUrl(url)) definition.url = url;
      else {
        const fix = 'Write a full address such as "https://example.com/mcp".';
        diagnostics.push(
          diagnostic('error', 'invalid-url', `Server "${name}": ${originOf(urlKey)} is not an http(s) URL.`, {
            ...place([originOf(urlKey)]),
            fix,
          }),
        );
        failures.push({ reason: `${originOf(urlKey)} is not an http(s) URL`, fix });
      }
    }
    definition.headers = map(fields.headers, 'headers');
    const headersCommand = fields.requestHeadersCommand;
    if (headersCommand !== undefined) {
      const command = text(headersCommand.command, 'requestHeadersCommand', ['command'], true);
      const args = (headersCommand.args ?? []).map((arg, index) =>
        text(arg, 'requestHeadersCommand', ['args', index], true),
      );
      const env: Record<string, string> = {};
      for (const [key, value] of Object.entries(headersCommand.env ?? {})) {
        const resolved = text(value, 'requestHeadersCommand', ['env', key]);
        if (resolved !== undefined) env[key] = resolved;
      }
      if (command !== undefined && args.every((arg) => arg !== undefined)) {
        definition.requestHeadersCommand = {
          command,
          args: args as string[],
          env,
          ...(headersCommand.timeoutMs === undefined ? {} : { timeoutMs: headersCommand.timeoutMs }),
        };
      }
    }
    if (fields.caFile !== undefined) {
      const caFile = text(fields.caFile, 'caFile', [], true);
      if (caFile !== undefined)
        definition.caFile = isAbsolute(caFile) ? caFile : resolve(context.cwd, caFile);
    }
    resolveAuth(fields, definition, text, secretText, context, failures, diagnostics, place, name, originOf);
  }
  if (commandValues.length > 0) definition.commandValues = commandValues;
  if (secretValues.size > 0) definition.secretValues = [...secretValues];

  const first = failures[0];
  if (first !== undefined) return { ok: false, ...first, diagnostics };
  return { ok: true, definition, diagnostics };
}

type Text = (value: string, key: string, sub?: PathSegment[], home?: boolean) => string | undefined;

function resolveAuth(
  fields: ServerFields,
  definition: ServerDefinition,
  text: Text,
  secretText: Text,
  context: InterpolationContext,
  failures: Array<{ reason: string; fix?: string }>,
  diagnostics: Diagnostic[],
  place: (segments: PathSegment[]) => { file: string; path: string; server: string },
  name: string,
  originOf: (key: string) => string,
): void {
  const hasBearer = fields.bearerToken !== undefined || fields.bearerTokenEnv !== undefined;
  const auth = fields.auth ?? (fields.oauth !== undefined ? 'oauth' : hasBearer ? 'bearer' : undefined);
  if (auth === undefined) return;
  definition.auth = auth;
  if (auth === 'bearer') {
    if (fields.bearerToken !== undefined) {
      const token = secretText(fields.bearerToken, 'bearerToken');
      if (token !== undefined) definition.bearerToken = token;
    } else if (fields.bearerTokenEnv !== undefined) {
      const variable = fields.bearerTokenEnv;
      const token = context.env[variable];
      if (token === undefined || token === '') {
        const fix = `Set ${variable} in the environment.`;
        const key = originOf('bearerTokenEnv');
        diagnostics.push(
          diagnostic(
            'error',
            'missing-variable',
            `Server "${name}": ${key} names ${variable}, which is not set, so the server is skipped.`,
            { ...place([key]), fix },
          ),
        );
        failures.push({ reason: `environment variable ${variable} (named by ${key}) is not set`, fix });
      } else definition.bearerToken = token;
    }
  }
  if (auth === 'oauth') {
    const raw = fields.oauth ?? {};
    const oauth: OAuthConfig = {
      grantType:
        raw.grantType === 'client_credentials' || raw.grantType === 'jwt-bearer'
          ? raw.grantType
          : OAUTH_DEFAULTS.grantType,
    };
    if (raw.dpop === true || raw.dpop === 'required') oauth.dpop = raw.dpop;
    const identity = raw.identityToken as Record<string, unknown> | undefined;
    if (identity && typeof identity === 'object') {
      const source: NonNullable<OAuthConfig['identityToken']> = {};
      if (typeof identity.env === 'string') source.env = identity.env;
      if (typeof identity.file === 'string') {
        const file = text(identity.file, 'oauth', ['identityToken', 'file'], true);
        if (file !== undefined) source.file = isAbsolute(file) ? file : resolve(context.cwd, file);
      }
      const command = identity.command;
      if (Array.isArray(command) && command.every((part): part is string => typeof part === 'string'))
        source.command = command;
      oauth.identityToken = source;
    }
    const exchange = raw.tokenExchange as Record<string, unknown> | undefined;
    if (exchange && typeof exchange.tokenEndpoint === 'string' && typeof exchange.clientId === 'string') {
      const secret =
        typeof exchange.clientSecret === 'string'
          ? text(exchange.clientSecret, 'oauth', ['tokenExchange', 'clientSecret'])
          : undefined;
      oauth.tokenExchange = {
        tokenEndpoint: exchange.tokenEndpoint,
        clientId: exchange.clientId,
        ...(secret !== undefined ? { clientSecret: secret } : {}),
      };
    }
    const strings = [
      'clientId',
      'clientSecret',
      'privateKey',
      'signingAlgorithm',
      'scope',
      'redirectUri',
      'clientName',
      'clientMetadataUrl',
      'authServerMetadataUrl',
      'clientUri',
      'logoUri',
    ] as const;
    for (const key of strings) {
      const value = raw[key];
      if (typeof value !== 'string') continue;
      const interpolated = INTERPOLATED_OAUTH_KEYS.has(key) ? text(value, 'oauth', [key]) : value;
      if (interpolated !== undefined) oauth[key] = interpolated;
    }
    if (typeof raw.privateKeyFile === 'string') {
      const file = text(raw.privateKeyFile, 'oauth', ['privateKeyFile'], true);
      if (file !== undefined) oauth.privateKeyFile = isAbsolute(file) ? file : resolve(context.cwd, file);
    }
    // Pi's built-in key for the same thing.
    if (oauth.redirectUri === undefined && typeof raw.callbackUrl === 'string')
      oauth.redirectUri = raw.callbackUrl;
    if (typeof raw.callbackPort === 'number') oauth.callbackPort = raw.callbackPort;
    if (typeof raw.skipIssuerMetadataValidation === 'boolean')
      oauth.skipIssuerMetadataValidation = raw.skipIssuerMetadataValidation;
    if (raw.authorizationParams && typeof raw.authorizationParams === 'object') {
      const params = Object.entries(raw.authorizationParams).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      );
      if (params.length > 0) oauth.authorizationParams = Object.fromEntries(params);
    }
    if (
      raw.clientRegistration === 'auto' ||
      raw.clientRegistration === 'dcr' ||
      raw.clientRegistration === 'cimd'
    ) {
      oauth.clientRegistration = raw.clientRegistration;
    }
    definition.oauth = oauth;
  }
}

const INTERPOLATED_OAUTH_KEYS = new Set(['clientId', 'clientSecret', 'privateKey']);

function transportOf(fields: ServerFields): Transport {
  if (fields.socket !== undefined) return 'socket';
  if (fields.type === 'sse') return 'sse';
  if (fields.type === 'stdio' || (fields.type === undefined && fields.command !== undefined)) return 'stdio';
  return 'http';
}

function idleTimeoutMs(fields: ServerFields, settings: Settings): number {
  if (fields.idleTimeout !== undefined) return Math.round(fields.idleTimeout * MINUTE_MS);
  const lifecycle = fields.lifecycle ?? SERVER_DEFAULTS.lifecycle;
  return lifecycle === 'lazy' ? settings.idleTimeoutMs : 0;
}

function exposureOf(value: string | undefined): Exposure | undefined {
  if (value === 'codemode' || value === 'direct' || value === 'deferred' || value === 'hidden') return value;
  return undefined;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
