// The one key policy: which names say their value is a secret, and which values under a name count
// as one. The redaction (src/redact.ts), the config loader (a ${VAR} put into a URL path or an
// argument), the definition shown in /mcp (src/config/redact.ts), the log and the inspector all ask
// here. Stateless: the config loader may use it without the redaction's process-wide secret set.

/** Names (env variables, query parameters, options) whose values are secrets when they look like one. */
export const SECRET_NAME =
  /(key|token|secret|passw(or)?d|pwd|auth|credential|signature|session|cookie|private)/i;
/** Names that leave no doubt: their value is a secret even when it is short or a plain word (`DB_PASSWORD: "hunter"`). */
const CERTAIN_SECRET_NAME =
  /(passw(or)?d|passphrase|pwd|secret|token|api[-_]?key|private[-_]?key|access[-_]?key|credential)/i;
/** Fields of data we write (log fields, inspector events) whose whole value is hidden. */
export const SECRET_FIELD =
  /token|secret|passw(?:or)?d|passphrase|authorization|bearer|api[-_]?key|cookie|credential|private[-_]?key|code[-_]?verifier/i;

/** Fields holding a map whose names are useful but whose values are secrets (env, headers). */
export const SECRET_MAP_FIELD = /^(?:env|headers|requestHeaders)$/i;

/** Shorter values carry no secret worth the damage of replacing them everywhere in a text. */
export const MIN_SECRET_LENGTH = 4;
/** A value whose name does not say "secret" counts as one from this length on (unless it is a path, URL, word…). */
const MIN_UNNAMED_SECRET_LENGTH = 8;

const NOT_SECRET_VALUE =
  /^(true|false|yes|no|on|off|debug|info|warn|warning|error|trace|production|development|test|-?\d{1,6})$/i;
const PATH_OR_URL = /^(?:[~/.]|[A-Za-z]:[\\/]|[a-z][a-z0-9+.-]*:\/\/[^@\s]*$)/i;
/** Values that configure rather than authenticate: paths, plain URLs, single words, numbers. */
const PLAIN_VALUE = /^(?:[~/.]|[A-Za-z]:[\\/]|[a-z][a-z0-9+.-]*:\/\/[^@\s]*$|[A-Za-z]+$|[\d.:,\s-]+$)/;

/** Whether the value of a variable (env entry, ${VAR}) with this name is a secret. */
export function isSecretValue(name: string, value: string): boolean {
  if (value.length < MIN_SECRET_LENGTH || NOT_SECRET_VALUE.test(value)) return false;
  if (CERTAIN_SECRET_NAME.test(name)) return !PATH_OR_URL.test(value);
  if (SECRET_NAME.test(name) && !(/^[A-Za-z]+$/.test(value) && value.length < MIN_UNNAMED_SECRET_LENGTH))
    return true;
  return value.length >= MIN_UNNAMED_SECRET_LENGTH && !PLAIN_VALUE.test(value);
}
