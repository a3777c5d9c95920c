// A copy of a server definition that is safe to show (/mcp, logs, the inspector): env and header
// values, tokens, client secrets and credentials in the URL or args masked. Text goes through the
// one redaction in src/redact.ts.

import { argSecrets, REDACTED } from '../redact.ts';
import { SECRET_NAME } from '../secret-policy.ts';
import type { ServerDefinition } from './types.ts';

/** A copy safe to show: env/header values, tokens, client secrets and credentials in the URL or args masked. */
export function redactDefinition(def: ServerDefinition): Record<string, unknown> {
  const copy: Record<string, unknown> = {
    ...def,
    source: { ...def.source },
    args: redactArgs(def.args),
    env: maskValues(def.env),
    headers: maskValues(def.headers),
    excludeTools: [...def.excludeTools],
    toolExposure: def.toolExposure.map((rule) => ({ ...rule })),
  };
  if (Array.isArray(def.directTools)) copy.directTools = [...def.directTools];
  if (def.includeTools !== undefined) copy.includeTools = [...def.includeTools];
  delete copy.secretValues;
  if (def.url !== undefined) copy.url = redactUrl(def.url);
  if (def.bearerToken !== undefined) copy.bearerToken = REDACTED;
  if (def.requestHeadersCommand !== undefined) {
    const command = def.requestHeadersCommand;
    copy.requestHeadersCommand = { ...command, args: redactArgs(command.args), env: maskValues(command.env) };
  }
  if (def.oauth !== undefined) {
    copy.oauth = {
      ...def.oauth,
      ...(def.oauth.clientSecret === undefined ? {} : { clientSecret: REDACTED }),
      ...(def.oauth.privateKey === undefined ? {} : { privateKey: REDACTED }),
    };
  }
  return copy;
}

function maskValues(values: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(values)) {
    Object.defineProperty(out, key, {
      value: REDACTED,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  if (url.password !== '') url.password = REDACTED;
  for (const [name] of [...url.searchParams]) {
    if (SECRET_NAME.test(name)) url.searchParams.set(name, REDACTED);
  }
  return url.toString();
}

function redactArgs(args: readonly string[]): string[] {
  const secrets = new Set(argSecrets(args));
  return args.map((arg) => {
    const inline = /^(--?[A-Za-z0-9_-]+=)(.+)$/.exec(arg);
    if (inline !== null && secrets.has(inline[2]!)) return `${inline[1]}${REDACTED}`;
    return secrets.has(arg) ? REDACTED : arg;
  });
}
