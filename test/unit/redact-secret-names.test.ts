// Issue 34, finding 7: a value under a secret name is a secret, whatever it looks like. The name is
// asked before the value's shape, so `DB_PASSWORD=123456` is hidden like `DB_PASSWORD=q8Zr2nVx`. A
// property over names × value shapes finds any other check that answers "not a secret" first.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isSecretValue,
  OUR_DATA,
  REDACTED,
  redactData,
  SecretValues,
  secretsOfDefinition,
} from '../../src/redact/index.ts';
import { definition } from '../support/config.ts';

/** Names that leave no doubt, in the spellings configs use. */
const certainName = fc
  .tuple(
    fc.constantFrom('', 'DB_', 'GITHUB_', 'MY_SERVICE_', 'X_', 'OPENAI_'),
    fc.constantFrom(
      'PASSWORD',
      'PASSWD',
      'PWD',
      'PASSPHRASE',
      'TOKEN',
      'ACCESS_TOKEN',
      'SECRET',
      'CLIENT_SECRET',
      'API_KEY',
      'APIKEY',
      'KEY',
      'PRIVATE_KEY',
      'PRIVATE',
      'AUTH',
      'CREDENTIAL',
      'CREDENTIALS',
      'ACCESS_KEY',
      'SIGNATURE',
      'COOKIE',
      'BEARER',
    ),
    fc.constantFrom('', '_VALUE', '_2'),
    fc.boolean(),
  )
  // A suffix after KEY, AUTH, PRIVATE or SIGNATURE makes them ambiguous (KEY_ID): those end the name.
  .map(([prefix, word, suffix, lower]) => {
    const name =
      /(?:^|_)(?:KEY|AUTH|PRIVATE|SIGNATURE)$/.test(word) && !/PRIVATE_KEY|API_KEY|ACCESS_KEY/.test(word)
        ? `${prefix}${word}`
        : `${prefix}${word}${suffix}`;
    return lower && !/(?:^|_)(?:KEY|AUTH|PRIVATE|SIGNATURE)$/.test(name) ? name.toLowerCase() : name;
  })
  // The shell's own folder is a location, not a secret's name (docs/security.md).
  .filter((name) => !/^(?:OLD)?PWD$/i.test(name));

const ALNUM = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];
const segment = fc.string({ unit: fc.constantFrom(...ALNUM), minLength: 1, maxLength: 8 });
/** Every shape a value can take, including the ones that used to read as "not a secret". */
const anyValue = fc.oneof(
  fc.stringMatching(/^-?[0-9]{1,12}$/),
  fc.stringMatching(/^[0-9]{1,4}\.[0-9]{1,4}$/),
  fc.string({ unit: fc.constantFrom(...ALNUM), minLength: 1, maxLength: 3 }),
  fc.constantFrom(
    'true',
    'false',
    'yes',
    'no',
    'on',
    'off',
    'TRUE',
    'debug',
    'info',
    'production',
    'test',
    'null',
  ),
  fc.stringMatching(/^[a-z]{1,12}$/),
  segment.map((s) => `/run/${s}`),
  segment.map((s) => `~/${s}`),
  segment.map((s) => `./${s}`),
  segment.map((s) => `.${s}`),
  segment.map((s) => `https://${s.toLowerCase()}.example.com/p`),
  segment.map((s) => `{"a":"${s}","n":1}`),
  segment.map((s) => `[1,"${s}"]`),
  fc.tuple(segment, segment).map(([a, b]) => `${a} ${b}`),
  segment.map((s) => `${s}-${s}:${s}`),
);

/** Values replaced in every text, not only after their name: long enough, and not a flag word. */
const replacedEverywhere = (value: string) =>
  value.length >= 4 && !/^(?:true|false|yes|no|on|off)$/i.test(value);

describe('a value under a secret name is a secret, whatever it looks like', () => {
  it('DB_PASSWORD=123456 and DB_PASSWORD=736251 are secrets', () => {
    expect(isSecretValue('DB_PASSWORD', '123456')).toBe(true);
    expect(isSecretValue('DB_PASSWORD', '736251')).toBe(true);
    expect(secretsOfDefinition(definition({ env: { DB_PASSWORD: '736251' } }))).toEqual(['736251']);
  });

  it('is known, printed after its name (NAME=value, JSON), as a field of our data, and anywhere once long enough', () => {
    fc.assert(
      fc.property(certainName, anyValue, (name, value) => {
        const secrets = new SecretValues();
        secrets.addDefinitions([definition({ env: { [name]: value } })]);
        // Printed after its name: hidden whatever it looks like.
        if (!/[\s"'&,;]/.test(value)) expect(secrets.redact(`${name}=${value}`)).toBe(`${name}=${REDACTED}`);
        expect(secrets.redact(JSON.stringify({ [name]: value }))).toBe(JSON.stringify({ [name]: REDACTED }));
        expect(redactData({ [name]: value }, { ...OUR_DATA, text: (t) => secrets.redact(t) })).toEqual({
          [name]: REDACTED,
        });
        // Alone: removed from our text and from a server's data (the config made it known).
        if (replacedEverywhere(value)) {
          expect(isSecretValue(name, value)).toBe(true);
          expect(secrets.redact(`connecting with ${value}.`)).toBe(`connecting with ${REDACTED}.`);
          expect(secrets.redactKnown(`result: ${value}`)).toBe(`result: ${REDACTED}`);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('the exemptions: a location under a name that says so, the shell folder, flags and very short values', () => {
    expect(isSecretValue('PASSWORD_FILE', '/run/pw')).toBe(false);
    expect(isSecretValue('TOKEN_URL', 'https://auth.example.com/token')).toBe(false);
    expect(isSecretValue('PWD', '/home/me/project')).toBe(false);
    // The same shapes under a name that does not say "location" are secrets.
    expect(isSecretValue('DB_PASSWORD', '/run/pw')).toBe(true);
    expect(isSecretValue('API_TOKEN', 'https://auth.example.com/token')).toBe(true);
    // Replacing `false` or `12` in every text would rewrite a server's data; after the name they are hidden.
    expect(isSecretValue('TOKEN_CACHE', 'false')).toBe(false);
    expect(isSecretValue('DB_PASSWORD', '12')).toBe(false);
    const secrets = new SecretValues();
    expect(secrets.redact('TOKEN_CACHE=false DB_PASSWORD=12')).toBe(
      `TOKEN_CACHE=${REDACTED} DB_PASSWORD=${REDACTED}`,
    );
    // A name only likely to be a secret's is still judged by its value: a timeout is not a secret.
    expect(isSecretValue('SESSION_TIMEOUT', '300000')).toBe(false);
    expect(isSecretValue('AUTH_MODE', 'oauth')).toBe(false);
    // Our own data's camelCase keys are ours: `cacheKey` is shown, `STRIPE_KEY` is not.
    expect(redactData({ cacheKey: 'abc1', STRIPE_KEY: 'abc1' }, { ...OUR_DATA, text: (t) => t })).toEqual({
      cacheKey: 'abc1',
      STRIPE_KEY: REDACTED,
    });
  });
});
