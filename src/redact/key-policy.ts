// The one key policy: which names say their value is a secret. Every channel asks here: the log's
// fields, the inspector's events, the text scrubber's `name=value` and `--name value` guesses, the
// config loader (a ${VAR} put into a URL path or an argument) and the secrets read from a definition.
// Stateless, so the config loader may use it without the known-secret set.

/** Words that leave no doubt: the value under such a name is a secret, even short or a plain word (`DB_PASSWORD: "hunter"`). */
const CERTAIN_WORDS = [
  'passw(?:or)?d',
  'passphrase',
  'pwd',
  'secret',
  'token',
  'api[-_]?key',
  'private[-_]?key',
  'access[-_]?key',
  'credential',
  'authorization',
  'bearer',
  'cookie',
  'code[-_]?verifier',
];
/** Words that make a name likely to hold a secret: its value is one when it looks like one. */
const LIKELY_WORDS = ['key', 'auth', 'signature', 'session', 'private'];

/** A name whose whole value is hidden wherever we write it (log fields, inspector events, `--token x`). */
export const SECRET_KEY = new RegExp(CERTAIN_WORDS.join('|'), 'i');
const LIKELY_NAME = [...CERTAIN_WORDS, ...LIKELY_WORDS].join('|');
/** A name (env variable, query parameter, option) whose value is a secret when it looks like one. */
export const SECRET_NAME = new RegExp(LIKELY_NAME, 'i');
/** A query parameter holding a credential: a secret name, or the short OAuth `code` and signed-URL `sig`. */
export const SECRET_QUERY_NAME = new RegExp(`^(?:code|sig)$|${LIKELY_NAME}`, 'i');

/** The words as alternations, for the text scrubber's `name=value` and `--name value` guesses. */
export const SECRET_KEY_WORDS = CERTAIN_WORDS.join('|');
export const SECRET_NAME_WORDS = LIKELY_NAME;
/**
 * A value shaped like a token: 16 or more token characters with a digit among them. Under a secret
 * name (SECRET_NAME) such a value is hidden in text (`session=…`) and in data (`{ session: … }`) alike.
 */
export const TOKEN_VALUE = '(?=[A-Za-z0-9._~+/=-]*\\d)[A-Za-z0-9+/_.=-]{16,}';
const WHOLE_TOKEN_VALUE = new RegExp(`^${TOKEN_VALUE}$`);

/** Whether the value under a key of our own data is hidden: any under SECRET_KEY, token-shaped under SECRET_NAME. */
export function isSecretField(key: string, value: unknown): boolean {
  if (typeof value === 'boolean') return false;
  if (SECRET_KEY.test(key)) return true;
  return typeof value === 'string' && SECRET_NAME.test(key) && WHOLE_TOKEN_VALUE.test(value);
}

/** A map whose names are useful but whose values are secrets (env, headers). */
export const SECRET_MAP_KEY = /^(?:env|headers|requestHeaders)$/i;

/** Shorter values carry no secret worth the damage of replacing them everywhere in a text. */
export const MIN_SECRET_LENGTH = 4;

/** What a hidden value is replaced by. */
export const REDACTED = '***';
/** A value whose name does not say "secret" counts as one from this length on (unless it is a path, URL, word…). */
const MIN_UNNAMED_SECRET_LENGTH = 8;

const NOT_SECRET_VALUE =
  /^(true|false|yes|no|on|off|debug|info|warn|warning|error|trace|production|development|test|-?\d{1,6})$/i;
/**
 * A value that is surely a path or a plain URL, even under a secret's name (`PASSWORD_FILE=/run/pw`):
 * absolute, home-relative, `./` or `../`, a drive. A bare `.name` is not: a key may start with a dot.
 */
const PATH_OR_URL = /^(?:\/|~(?:\/|$)|\.{1,2}[\\/]|[A-Za-z]:[\\/]|[a-z][a-z0-9+.-]*:\/\/[^@\s]*$)/i;
/** Values that configure rather than authenticate: paths, plain URLs, single words, numbers. */
const PLAIN_VALUE = /^(?:[~/.]|[A-Za-z]:[\\/]|[a-z][a-z0-9+.-]*:\/\/[^@\s]*$|[A-Za-z]+$|[\d.:,\s-]+$)/;

/** Whether the value of a variable (env entry, ${VAR}) with this name is a secret. */
export function isSecretValue(name: string, value: string): boolean {
  if (value.length < MIN_SECRET_LENGTH || NOT_SECRET_VALUE.test(value)) return false;
  if (SECRET_KEY.test(name)) return !PATH_OR_URL.test(value);
  if (SECRET_NAME.test(name) && !(/^[A-Za-z]+$/.test(value) && value.length < MIN_UNNAMED_SECRET_LENGTH))
    return true;
  return value.length >= MIN_UNNAMED_SECRET_LENGTH && !PLAIN_VALUE.test(value);
}
