// Known secret values: what the config names (env values, headers and the token after `Bearer`,
// bearerToken, OAuth client secrets and keys, URL and argument credentials, secret `${VAR}` values)
// and what is learned at run time (OAuth tokens, codes and verifiers, `!command` output). Every
// channel removes them, server data included (DESIGN rule 6). Each value is kept with its JSON-escaped
// and URL-encoded spellings; the set only grows, bounded, the oldest dropped first.
//
// One instance per runtime owner (Pi's bridge, the CLI, a test), passed to every part that learns a
// secret or lets text out; no module holds one, so two runtimes in one process keep their own.

import type { ServerDefinition } from '../config/types.ts';
import { redactData, SERVER_DATA } from './data.ts';
import { isSecretValue, MIN_SECRET_LENGTH, REDACTED, SECRET_NAME } from './key-policy.ts';
import { maskCredentialShapes } from './text.ts';

export { REDACTED };

const MAX_SECRETS = 10_000;
const MEMO_MAX_CHARS = 1_024;
const MEMO_MAX_ENTRIES = 20_000;

export class SecretValues {
  private readonly known = new Set<string>();
  private pattern: RegExp | undefined;
  /** Grows by one each time the set changes (the memo below is stale after). */
  private changes = 0;
  /**
   * `redact`'s answers for short texts, valid while the known secrets stay the same: tool
   * descriptions and schema strings repeat (every "string", every cached catalog registered again),
   * and a dozen patterns per string are the bulk of registering a large catalog at session start.
   */
  private readonly answers = new Map<string, string>();
  private answersVersion = -1;

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

  /** Our own diagnostic text: known secrets (and `extraSecrets`) and credential-shaped parts → ***. */
  redact(text: string, extraSecrets: readonly string[] = []): string {
    if (typeof text !== 'string') return text;
    const memo = extraSecrets.length === 0 && text.length <= MEMO_MAX_CHARS;
    if (memo) {
      if (this.answersVersion !== this.changes) {
        this.answers.clear();
        this.answersVersion = this.changes;
      }
      const answered = this.answers.get(text);
      if (answered !== undefined) return answered;
    }
    const out = maskCredentialShapes(this.redactKnown(text, extraSecrets));
    if (memo) {
      if (this.answers.size >= MEMO_MAX_ENTRIES) this.answers.clear();
      this.answers.set(text, out);
    }
    return out;
  }

  /** A copy of JSON-like data with every string (not keys) through `redact`; nothing hidden by name. */
  redactDeep<T>(value: T): T {
    return redactData(value, { ...SERVER_DATA, text: (text) => this.redact(text) }) as T;
  }

  /** A copy of a server's JSON-like data with every known secret removed from its strings. */
  redactKnownDeep<T>(value: T): T {
    return redactData(value, { ...SERVER_DATA, text: (text) => this.redactKnown(text) }) as T;
  }

  /**
   * A server's data: `text` with every known secret, and every one of `extra`, replaced by ***,
   * longest first; nothing is guessed from its shape.
   */
  redactKnown(text: string, extra: readonly string[] = []): string {
    if (typeof text !== 'string') return text;
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
  if (def.oauth?.tokenExchange?.clientSecret !== undefined) found.push(def.oauth.tokenExchange.clientSecret);
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
