// The one redaction. Everything that leaves the runtime — tool results and progress, ToolSearch text,
// /mcp, notifications, the status bar, CLI text and JSON, logs, inspector events, the cache — goes
// through it on its way out: a server's data through `redactKnown` (known secrets only), our own
// diagnostic text through `redact` (also token-shaped text). Which names and values count as secret
// is the key policy in ./secret-policy.ts.
//
//   redact(text)             our diagnostic text (errors, stderr, logs, status): known secrets and
//                            token-shaped text (JWTs, sk-…, ghp_…, xox…-, Bearer …, URL passwords,
//                            `token=…`, long hex/base64 runs after token/key/secret) → ***
//   redactKnown(text)        a server's data (tool results, ToolSearch text, links the user opens):
//                            known secrets only, never guessed from the shape of the data
//   redactDeep(value)        a copy of JSON-like data with every string redacted (keys and shape kept)
//   redactKnownDeep(value)   the same with redactKnown
//   addSecrets(values)       remember secrets learned at runtime (OAuth access/refresh tokens, codes,
//                            client secrets, `!command` output): from then on they are redacted everywhere
//   addServerSecrets(defs)   remember every secret a config names (the runtime calls it on each load)
//   secretsOfDefinition(def) what a server definition holds: env values, headers (and the token after
//                            `Bearer`), bearerToken, oauth.clientSecret, oauth.privateKey, URL and argument
//                            credentials, secret `${VAR}` values wherever they were put
//
// The set is process-wide on purpose: a token learned by one part (a sign-in, a config load) is
// hidden by every other part without plumbing. It only grows (bounded; the oldest are dropped first).

import type { ServerDefinition } from './config/types.ts';
import { isSecretValue, MIN_SECRET_LENGTH, SECRET_NAME } from './secret-policy.ts';

export const REDACTED = '***';
export { MIN_SECRET_LENGTH, SECRET_NAME };

const MAX_SECRETS = 10_000;

const DIGIT_AHEAD = '(?=[A-Za-z0-9._~+/=-]*\\d)';
const TOKEN_SHAPES: Array<[RegExp, string]> = [
  // JWTs (header.payload.signature, base64url)
  [/\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/g, REDACTED],
  // Vendor key formats: OpenAI/Anthropic/Stripe sk-…, Stripe rk_/pk_, GitHub, GitLab, Slack, AWS, Google
  [/\bsk-[A-Za-z0-9_-]{10,}/g, REDACTED],
  [/\b(?:rk|pk|sk)_(?:live|test)_[A-Za-z0-9]{8,}/g, REDACTED],
  [/\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}/g, REDACTED],
  [/\bgithub_pat_[A-Za-z0-9_]{16,}/g, REDACTED],
  [/\bglpat-[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\bxox[abposre]-[A-Za-z0-9-]{8,}/g, REDACTED],
  [/\bAKIA[0-9A-Z]{16}\b/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, REDACTED],
  // Authorization schemes
  [
    new RegExp(
      `\\b(Bearer|Basic|Token)\\s+(?:${DIGIT_AHEAD}[A-Za-z0-9._~+/=-]{8,}|[A-Za-z0-9._~+/=-]{16,})`,
      'gi',
    ),
    `$1 ${REDACTED}`,
  ],
  // user:password@ in URLs
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*):[^/\s@]+@/gi, `$1:${REDACTED}@`],
  // credentials in query strings
  [
    /([?&](?:access_token|refresh_token|id_token|token|api[-_]?key|apikey|key|secret|client_secret|password|code|sig|signature)=)(?!\*\*\*)[^&#\s"']+/gi,
    `$1${REDACTED}`,
  ],
  // --token abc, --api-key=abc
  [
    /(--?[\w-]*(?:token|secret|password|passwd|api[-_]?key)[\w-]*(?:=|\s+))(?!\*\*\*)(?!-)[^\s"']+/gi,
    `$1${REDACTED}`,
  ],
  // long hex/base64 runs after token/key/secret: API_TOKEN=…, "secret": "…", key: …
  [
    new RegExp(
      `((?:token|key|secret|passw(?:or)?d|pwd|credential|auth)[\\w-]*["']?\\s*[:=]\\s*["']?)${DIGIT_AHEAD}[A-Za-z0-9+/_.=-]{16,}`,
      'gi',
    ),
    `$1${REDACTED}`,
  ],
];

const known = new Set<string>();
let pattern: RegExp | undefined;
/**
 * Answers for short texts, valid while the secret set stays the same: tool descriptions and schema
 * strings repeat (every "string", every cached catalog registered again), and 13 patterns per string
 * are the bulk of registering a large catalog at session start.
 */
const answers = new Map<string, string>();
const MEMO_MAX_CHARS = 1_024;
const MEMO_MAX_ENTRIES = 20_000;

/** Remembers secret values (and their JSON-escaped and URL-encoded spellings) for every later redact(). */
export function addSecrets(values: Iterable<unknown>): void {
  let changed = false;
  for (const value of values) {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) continue;
    for (const spelling of spellings(value)) {
      if (known.has(spelling)) known.delete(spelling);
      else changed = true;
      known.add(spelling);
    }
  }
  while (known.size > MAX_SECRETS) {
    known.delete(known.values().next().value as string);
    changed = true;
  }
  if (changed) {
    pattern = undefined;
    answers.clear();
  }
}

/** Remembers every secret the given server definitions name. */
export function addServerSecrets(defs: Iterable<ServerDefinition>): void {
  for (const def of defs) addSecrets(secretsOfDefinition(def));
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

/**
 * Our own diagnostic text (errors, stderr tails, logs, status): every known secret (longest first)
 * and every token-shaped part replaced by ***.
 */
export function redact(text: string, extraSecrets: readonly string[] = []): string {
  if (typeof text !== 'string') return text;
  const memo = extraSecrets.length === 0 && text.length <= MEMO_MAX_CHARS;
  if (memo) {
    const answered = answers.get(text);
    if (answered !== undefined) return answered;
  }
  let out = redactKnown(text, extraSecrets);
  for (const [shape, replacement] of TOKEN_SHAPES) out = out.replace(shape, replacement);
  if (memo) {
    if (answers.size >= MEMO_MAX_ENTRIES) answers.clear();
    answers.set(text, out);
  }
  return out;
}

/**
 * A server's data (tool results for the model, ToolSearch text, a link the user must open): only the
 * secrets we know are replaced by ***; nothing is guessed from its shape, so `?code=abc123` stays.
 */
export function redactKnown(text: string, extraSecrets: readonly string[] = []): string {
  if (typeof text !== 'string') return text;
  let out = text;
  if (extraSecrets.length > 0) {
    const extra = [...new Set(extraSecrets.flatMap((s) => (typeof s === 'string' ? spellings(s) : [])))]
      .filter((s) => s.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
    for (const secret of extra) out = out.split(secret).join(REDACTED);
  }
  const secrets = knownPattern();
  return secrets ? out.replace(secrets, REDACTED) : out;
}

/** A copy of JSON-like data with every string (not keys: they are names we or the server chose) redacted. */
export function redactDeep<T>(value: T): T {
  return mapStrings(value, redact, 0);
}

/** redactDeep for a server's data: known secrets only (see redactKnown). */
export function redactKnownDeep<T>(value: T): T {
  return mapStrings(value, (text) => redactKnown(text), 0);
}

function mapStrings<T>(value: T, map: (text: string) => string, depth: number): T {
  if (typeof value === 'string') return map(value) as T;
  if (typeof value !== 'object' || value === null || depth > 64) return value;
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map, depth + 1)) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
    return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, key, {
      value: mapStrings(item, map, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out as T;
}

function knownPattern(): RegExp | undefined {
  if (known.size === 0) return undefined;
  if (!pattern) {
    const ordered = [...known].sort((a, b) => b.length - a.length);
    pattern = new RegExp(ordered.map(escapeRegExp).join('|'), 'g');
  }
  pattern.lastIndex = 0;
  return pattern;
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

/**
 * What reads as the next option rather than a value: `--long-name` or `-x`. Anything else after
 * `--token` is its value, even when it starts with a dash (base64url tokens may).
 */
const FLAG = /^(?:--[a-z][a-z0-9-]*|-[A-Za-z])$/;

/** A PEM key, whole and line by line (a log may wrap or quote it), without its BEGIN/END lines. */
function pemSecrets(pem: string): string[] {
  const lines = pem.split(/\r?\n|\\n/).map((line) => line.trim());
  return [pem, ...lines.filter((line) => line && !line.startsWith('-----'))];
}

/** A header value, and the credential after its scheme (`Bearer <token>`). */
export function headerSecrets(value: string): string[] {
  const scheme = /^\s*(bearer|basic|token)\s+(.+)$/i.exec(value);
  return scheme?.[2] === undefined ? [value] : [value, scheme[2].trim()];
}
