// The one text scrubber. A server's data (tool results, ToolSearch text, a link the user must open)
// goes through `redactKnown`: known secret values only, nothing guessed from its shape, so
// `?code=abc123` stays. Our own diagnostic text (errors, stderr tails, logs, status) goes through
// `redact`: known secrets, and what looks like a credential (JWTs, vendor key formats, `Bearer …`,
// URL passwords, secret-named query parameters, options and `name=value` pairs of the key policy).

import { SECRET_KEY_WORDS, SECRET_NAME_WORDS, TOKEN_VALUE } from './key-policy.ts';
import { REDACTED, secretValues } from './secret-values.ts';

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
  // credentials in query strings: secret names, and OAuth's `code` and signed URLs' `sig`
  [
    new RegExp(`([?&](?:[\\w-]*(?:${SECRET_NAME_WORDS})[\\w-]*|code|sig)=)(?!\\*\\*\\*)[^&#\\s"']+`, 'gi'),
    `$1${REDACTED}`,
  ],
  // --token abc, --api-key=abc
  [
    new RegExp(`(--?[\\w-]*(?:${SECRET_KEY_WORDS})[\\w-]*(?:=|\\s+))(?!\\*\\*\\*)(?!-)[^\\s"']+`, 'gi'),
    `$1${REDACTED}`,
  ],
  // token-shaped values after a secret name: API_TOKEN=…, "secret": "…", session: …
  [
    new RegExp(`((?:${SECRET_NAME_WORDS})[\\w-]*["']?\\s*[:=]\\s*["']?)${TOKEN_VALUE}`, 'gi'),
    `$1${REDACTED}`,
  ],
];

/**
 * Answers for short texts, valid while the known secrets stay the same: tool descriptions and schema
 * strings repeat (every "string", every cached catalog registered again), and a dozen patterns per
 * string are the bulk of registering a large catalog at session start.
 */
const answers = new Map<string, string>();
let answersVersion = -1;
const MEMO_MAX_CHARS = 1_024;
const MEMO_MAX_ENTRIES = 20_000;

/** Our own diagnostic text: known secrets (and `extraSecrets`) and credential-shaped parts → ***. */
export function redact(text: string, extraSecrets: readonly string[] = []): string {
  if (typeof text !== 'string') return text;
  const memo = extraSecrets.length === 0 && text.length <= MEMO_MAX_CHARS;
  if (memo) {
    if (answersVersion !== secretValues.version) {
      answers.clear();
      answersVersion = secretValues.version;
    }
    const answered = answers.get(text);
    if (answered !== undefined) return answered;
  }
  let out = secretValues.removeFrom(text, extraSecrets);
  for (const [shape, replacement] of TOKEN_SHAPES) out = out.replace(shape, replacement);
  if (memo) {
    if (answers.size >= MEMO_MAX_ENTRIES) answers.clear();
    answers.set(text, out);
  }
  return out;
}

/** A server's data: only known secrets (and `extraSecrets`) → ***; nothing is guessed from its shape. */
export function redactKnown(text: string, extraSecrets: readonly string[] = []): string {
  if (typeof text !== 'string') return text;
  return secretValues.removeFrom(text, extraSecrets);
}
