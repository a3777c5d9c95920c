// Secrets of a server definition, and copies of it / of text with them replaced by "***", for /mcp,
// logs, the inspector and anything else a person or a cache may see.

import type { ServerDefinition } from './types.ts';

export const REDACTED = '***';
/** Shorter values carry no secret worth the damage of replacing them everywhere in a text. */
export const MIN_SECRET_LENGTH = 4;

const SECRET_NAME = /(key|token|secret|passw(or)?d|pwd|auth|credential|signature|session|cookie|private)/i;
const NOT_SECRET_VALUE =
  /^(true|false|yes|no|on|off|debug|info|warn|warning|error|trace|production|development|test|-?\d{1,6})$/i;

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
  if (def.url !== undefined) copy.url = redactUrl(def.url);
  if (def.bearerToken !== undefined) copy.bearerToken = REDACTED;
  if (def.oauth !== undefined) {
    copy.oauth = {
      ...def.oauth,
      ...(def.oauth.clientSecret === undefined ? {} : { clientSecret: REDACTED }),
    };
  }
  return copy;
}

/** Every secret string of a definition, for redactText and the logger. */
export function secretValues(def: ServerDefinition): string[] {
  const found: string[] = [];
  for (const value of Object.values(def.env)) if (!NOT_SECRET_VALUE.test(value)) found.push(value);
  for (const value of Object.values(def.headers)) {
    found.push(value);
    const scheme = /^\s*(bearer|basic|token)\s+(.+)$/i.exec(value);
    if (scheme?.[2] !== undefined) found.push(scheme[2].trim());
  }
  if (def.bearerToken !== undefined) found.push(def.bearerToken);
  if (def.oauth?.clientSecret !== undefined) found.push(def.oauth.clientSecret);
  if (def.url !== undefined) found.push(...urlSecrets(def.url));
  found.push(...argSecrets(def.args));
  return [...new Set(found.filter((value) => value.length >= MIN_SECRET_LENGTH))];
}

/** Replaces every occurrence of each secret (longest first), and any `Bearer <token>`, with "***". */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  const ordered = [...new Set(secrets)]
    .filter((secret) => typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of ordered) out = out.split(secret).join(REDACTED);
  return out.replace(/\b(Bearer|Basic)\s+(?!\*\*\*)[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED}`);
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

function urlSecrets(text: string): string[] {
  try {
    const url = new URL(text);
    const out: string[] = [];
    if (url.password !== '') out.push(url.password, decodeURIComponent(url.password));
    for (const [name, value] of url.searchParams) {
      if (SECRET_NAME.test(name) && value !== '') out.push(value, encodeURIComponent(value));
    }
    return out;
  } catch {
    return [];
  }
}

/** `--api-key=abc` and `--token abc` style arguments. */
function argSecrets(args: readonly string[]): string[] {
  const out: string[] = [];
  args.forEach((arg, index) => {
    const inline = /^--?([A-Za-z0-9_-]+)=(.+)$/.exec(arg);
    if (inline !== null && SECRET_NAME.test(inline[1]!)) out.push(inline[2]!);
    const next = args[index + 1];
    if (
      /^--?[A-Za-z0-9_-]+$/.test(arg) &&
      SECRET_NAME.test(arg) &&
      next !== undefined &&
      !next.startsWith('-')
    ) {
      out.push(next);
    }
  });
  return out;
}

function redactArgs(args: readonly string[]): string[] {
  const secrets = new Set(argSecrets(args));
  return args.map((arg) => {
    const inline = /^(--?[A-Za-z0-9_-]+=)(.+)$/.exec(arg);
    if (inline !== null && secrets.has(inline[2]!)) return `${inline[1]}${REDACTED}`;
    return secrets.has(arg) ? REDACTED : arg;
  });
}
