// Known secret values: what the config names (env values, headers and the token after `Bearer`,
// bearerToken, OAuth client secrets and keys, URL and argument credentials, secret `${VAR}` values)
// and what is learned at run time (OAuth tokens, codes and verifiers, `!command` output). Every
// channel removes them, server data included (DESIGN rule 6). Each value is kept with its JSON-escaped
// and URL-encoded spellings; the set only grows, bounded, the oldest dropped first.

import type { ServerDefinition } from '../config/types.ts';
import { isSecretValue, MIN_SECRET_LENGTH, SECRET_NAME } from './key-policy.ts';

export const REDACTED = '***';
const MAX_SECRETS = 10_000;

export class SecretValues {
  private readonly known = new Set<string>();
  private pattern: RegExp | undefined;
  private changes = 0;

  /** Grows by one each time the set changes (a cache of redacted texts is stale after). */
  get version(): number {
    return this.changes;
  }

  /** Remembers secret values (and their other spellings); shorter than MIN_SECRET_LENGTH are ignored. */
  add(values: Iterable<unknown>): void {
    let changed = false;
    for (const value of values) {
      if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) continue;
      for (const spelling of spellings(value)) {
        if (this.known.has(spelling)) this.known.delete(spelling);
        else changed = true;
        this.known.add(spelling);
      }
    }
    while (this.known.size > MAX_SECRETS) {
      this.known.delete(this.known.values().next().value as string);
      changed = true;
    }
    if (changed) {
      this.pattern = undefined;
      this.changes++;
    }
  }

  /** Remembers every secret the given server definitions name. */
  addDefinitions(defs: Iterable<ServerDefinition>): void {
    for (const def of defs) this.add(secretsOfDefinition(def));
  }

  /** `text` with every known secret, and every one of `extra`, replaced by ***, longest first. */
  removeFrom(text: string, extra: readonly string[] = []): string {
    let out = text;
    if (extra.length > 0) {
      const ordered = [...new Set(extra.flatMap((s) => (typeof s === 'string' ? spellings(s) : [])))]
        .filter((s) => s.length >= MIN_SECRET_LENGTH)
        .sort((a, b) => b.length - a.length);
      for (const secret of ordered) out = out.split(secret).join(REDACTED);
    }
    const known = this.knownPattern();
    return known ? out.replace(known, REDACTED) : out;
  }

  private knownPattern(): RegExp | undefined {
    if (this.known.size === 0) return undefined;
    if (!this.pattern) {
      const ordered = [...this.known].sort((a, b) => b.length - a.length);
      this.pattern = new RegExp(ordered.map(escapeRegExp).join('|'), 'g');
    }
    this.pattern.lastIndex = 0;
    return this.pattern;
  }
}

/**
 * The process's known secrets. A token learned by one part (a sign-in, a config load) must be hidden
 * by every other part, so this one instance is shared rather than handed through every port.
 */
export const secretValues = new SecretValues();

/** Remembers secret values for every later redaction (see SecretValues.add). */
export function addSecrets(values: Iterable<unknown>): void {
  secretValues.add(values);
}

/** Remembers every secret the given server definitions name. */
export function addServerSecrets(defs: Iterable<ServerDefinition>): void {
  secretValues.addDefinitions(defs);
}

/** Every secret string of a definition. */
export function secretsOfDefinition(def: ServerDefinition): string[] {
  const found: string[] = [];
  const env = [...Object.entries(def.env ?? {}), ...Object.entries(def.requestHeadersCommand?.env ?? {})];
  for (const [name, value] of env) {
    if (typeof value !== 'string') continue;
    if (isSecretValue(name, value)) found.push(value);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) found.push(...urlSecrets(value));
  }
  // ${VAR} values the key policy calls secret, wherever the config put them (URL path, arguments…).
  found.push(...(def.secretValues ?? []));
  for (const value of Object.values(def.headers ?? {})) {
    if (typeof value === 'string') found.push(...headerSecrets(value));
  }
  if (def.bearerToken !== undefined) found.push(def.bearerToken);
  if (def.oauth?.clientSecret !== undefined) found.push(def.oauth.clientSecret);
  if (def.oauth?.privateKey !== undefined) found.push(...pemSecrets(def.oauth.privateKey));
  if (def.url !== undefined) found.push(...urlSecrets(def.url));
  found.push(...argSecrets(def.args ?? []));
  found.push(...argSecrets(def.requestHeadersCommand?.args ?? []));
  return [
    ...new Set(found.filter((value) => typeof value === 'string' && value.length >= MIN_SECRET_LENGTH)),
  ];
}

/** `--api-key=abc` and `--token abc` style arguments. */
export function argSecrets(args: readonly string[]): string[] {
  const out: string[] = [];
  args.forEach((arg, index) => {
    const inline = /^--?([A-Za-z0-9_-]+)=(.+)$/.exec(arg);
    if (inline !== null && SECRET_NAME.test(inline[1]!)) out.push(inline[2]!);
    const next = args[index + 1];
    if (/^--?[A-Za-z0-9_-]+$/.test(arg) && SECRET_NAME.test(arg) && next !== undefined && !FLAG.test(next)) {
      out.push(next);
    }
  });
  return out;
}

/** A header value, and the credential after its scheme (`Bearer <token>`). */
export function headerSecrets(value: string): string[] {
  const scheme = /^\s*(bearer|basic|token)\s+(.+)$/i.exec(value);
  return scheme?.[2] === undefined ? [value] : [value, scheme[2].trim()];
}

/**
 * What reads as the next option rather than a value: `--long-name` or `-x`. Anything else after
 * `--token` is its value, even when it starts with a dash (base64url tokens may).
 */
const FLAG = /^(?:--[a-z][a-z0-9-]*|-[A-Za-z])$/;

function urlSecrets(text: string): string[] {
  try {
    const url = new URL(text);
    const out: string[] = [];
    if (url.password !== '') out.push(url.password, decodeURIComponent(url.password));
    if (url.username !== '' && url.password === '') out.push(url.username, decodeURIComponent(url.username));
    for (const [name, value] of url.searchParams) {
      if (SECRET_NAME.test(name) && value !== '') out.push(value, encodeURIComponent(value));
    }
    return out;
  } catch {
    return [];
  }
}

/** A PEM key, whole and line by line (a log may wrap or quote it), without its BEGIN/END lines. */
function pemSecrets(pem: string): string[] {
  const lines = pem.split(/\r?\n|\\n/).map((line) => line.trim());
  return [pem, ...lines.filter((line) => line && !line.startsWith('-----'))];
}

function spellings(value: string): string[] {
  const out = [value];
  const json = JSON.stringify(value).slice(1, -1);
  if (json !== value) out.push(json);
  try {
    const encoded = encodeURIComponent(value);
    if (encoded !== value) out.push(encoded);
  } catch {
    // lone surrogate: no URL spelling
  }
  return out.filter((s) => s.length >= MIN_SECRET_LENGTH);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
