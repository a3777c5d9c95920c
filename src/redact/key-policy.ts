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

/**
 * Whether the value under a key of our own data is hidden: any under SECRET_KEY or an env-style name
 * that ends in KEY, AUTH… (`STRIPE_KEY`), token-shaped under SECRET_NAME. A boolean is a flag
 * (`hasToken: true`), never a secret; our own camelCase `cacheKey` is not a secret's name.
 */
export function isSecretField(key: string, value: unknown): boolean {
  if (typeof value === 'boolean') return false;
  if (SECRET_KEY.test(key) || (ENV_STYLE_NAME.test(key) && isCertainSecretName(key))) return true;
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

/**
 * The last word of a variable's name that makes it surely a secret's, beside CERTAIN_WORDS anywhere:
 * `STRIPE_KEY`, `GITHUB_AUTH`, `SSH_PRIVATE`. Only for variables (env, `${VAR}`): a field of our own
 * data named `cacheKey` is ours and not a secret.
 */
const CERTAIN_LAST_WORD = /^(?:key|keys|auth|private|signature)$/i;
/** The same, inside text (`STRIPE_KEY=…`): an upper-case name that ends in one of those words. */
export const CERTAIN_LAST_WORDS = '(?:[A-Z0-9]+_)*(?:KEY|KEYS|AUTH|PRIVATE|SIGNATURE)';
/**
 * A name that says where a secret is kept, not what it is (`PASSWORD_FILE`, `TOKEN_DIR`, `SECRET_PATH`,
 * `TOKEN_URL`), and the shell's own `PWD`: under it a path or plain URL is not the secret.
 */
const LOCATION_LAST_WORD = /^(?:file|path|dir|folder|url|uri|endpoint)$/i;
const SHELL_FOLDER = /^(?:OLD)?PWD$/;
const ENV_STYLE_NAME = /^[A-Z][A-Z0-9_]*$/;

/** The last word of a name: `STRIPE_KEY` → KEY, `stripeKey` → Key, `monkey` → monkey. */
function lastWord(name: string): string {
  return (
    name
      .split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/)
      .filter(Boolean)
      .at(-1) ?? ''
  );
}

/** Flag words: under any name a value like this configures (`TOKEN_CACHE=false`), so it is never replaced in text. */
const FLAG_VALUE = /^(?:true|false|yes|no|on|off)$/i;
/** Values that only configure, judged so under a name that is merely likely a secret's (`SESSION_TIMEOUT=300000`). */
const NOT_SECRET_VALUE = /^(?:debug|info|warn|warning|error|trace|production|development|test|-?\d{1,6})$/i;
/**
 * A value that is surely a path or a plain URL: absolute, home-relative, `./` or `../`, a drive.
 * A bare `.name` is not: a key may start with a dot.
 */
const PATH_OR_URL = /^(?:\/|~(?:\/|$)|\.{1,2}[\\/]|[A-Za-z]:[\\/]|[a-z][a-z0-9+.-]*:\/\/[^@\s]*$)/i;
/** Values that configure rather than authenticate: paths, plain URLs, single words, numbers. */
const PLAIN_VALUE = /^(?:[~/.]|[A-Za-z]:[\\/]|[a-z][a-z0-9+.-]*:\/\/[^@\s]*$|[A-Za-z]+$|[\d.:,\s-]+$)/;

/** Whether a variable's name leaves no doubt that its value is a secret (`DB_PASSWORD`, `STRIPE_KEY`). */
export function isCertainSecretName(name: string): boolean {
  return SECRET_KEY.test(name) || CERTAIN_LAST_WORD.test(lastWord(name));
}

/**
 * Whether the value of a variable (env entry, ${VAR}) with this name is a secret, so it is removed
 * from every text we let out. The name is asked first: under a name that is surely a secret's, every
 * value is one, whatever it looks like (`DB_PASSWORD=123456`), except where the name says it is a
 * location and the value is one (`PASSWORD_FILE=/run/pw`). Exempt under every name, because replacing
 * them everywhere would rewrite a server's data: values shorter than MIN_SECRET_LENGTH and the flag
 * words true/false/yes/no/on/off. Printed after their name (`DB_PASSWORD=123`) they are still masked
 * in our own text (text.ts).
 */
export function isSecretValue(name: string, value: string): boolean {
  if (value.length < MIN_SECRET_LENGTH || FLAG_VALUE.test(value)) return false;
  const location =
    (LOCATION_LAST_WORD.test(lastWord(name)) || SHELL_FOLDER.test(name)) && PATH_OR_URL.test(value);
  if (isCertainSecretName(name)) return !location;
  if (SECRET_NAME.test(name)) {
    if (location || NOT_SECRET_VALUE.test(value)) return false;
    return !(/^[A-Za-z]+$/.test(value) && value.length < MIN_UNNAMED_SECRET_LENGTH);
  }
  return value.length >= MIN_UNNAMED_SECRET_LENGTH && !PLAIN_VALUE.test(value);
}
