// The text scrubber's guesses. A server's data (tool results, ToolSearch text, a link the user must
// open) goes through `SecretValues.redactKnown`: known secret values only, nothing guessed from its
// shape, so `?code=abc123` stays. Our own diagnostic text (errors, stderr tails, logs, status) goes
// through `SecretValues.redact`: known secrets, and what looks like a credential (JWTs, vendor key
// formats, `Bearer …`, URL passwords, secret-named query parameters, options and `name=value` pairs of
// the key policy), the shapes below.

import {
  CERTAIN_LAST_WORDS,
  REDACTED,
  SECRET_KEY_WORDS,
  SECRET_NAME_WORDS,
  TOKEN_VALUE,
} from './key-policy.ts';

/** A name that is surely a secret's, as printed: `DB_PASSWORD`, `api_token` (any case), `STRIPE_KEY` (upper case). */
const CERTAIN_NAMES: Array<[string, string]> = [
  [`[\\w.-]*(?:${SECRET_KEY_WORDS})[\\w.-]*`, 'gi'],
  [CERTAIN_LAST_WORDS, 'g'],
];
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
  // any value after a name that is surely a secret's, whatever it looks like: DB_PASSWORD=123456,
  // and in JSON: "DB_PASSWORD": "736251", "api_key": 42
  ...CERTAIN_NAMES.flatMap(
    ([name, flags]): Array<[RegExp, string]> => [
      [new RegExp(`(\\b${name}=)(?!\\*\\*\\*)[^\\s"'&,;]+`, flags), `$1${REDACTED}`],
      [
        new RegExp(`("${name}"\\s*:\\s*)(?:"(?!\\*\\*\\*")(?:[^"\\\\]|\\\\.)*"|-?\\d[\\d.eE+-]*)`, flags),
        `$1"${REDACTED}"`,
      ],
    ],
  ),
  // token-shaped values after a secret name: API_TOKEN=…, "secret": "…", session: …
  [
    new RegExp(`((?:${SECRET_NAME_WORDS})[\\w-]*["']?\\s*[:=]\\s*["']?)${TOKEN_VALUE}`, 'gi'),
    `$1${REDACTED}`,
  ],
];

/** Credential-shaped parts of our own diagnostic text → *** (SecretValues.redact adds the known ones). */
export function maskCredentialShapes(text: string): string {
  let out = text;
  for (const [shape, replacement] of TOKEN_SHAPES) out = out.replace(shape, replacement);
  return out;
}
