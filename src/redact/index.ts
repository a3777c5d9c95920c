// The one redaction (DESIGN rule 6). Everything that leaves the runtime — tool results and progress,
// ToolSearch text, /mcp, notifications, the status bar, CLI text and JSON, logs, inspector events, the
// cache — goes through it on its way out:
//   key-policy.ts     which names say their value is a secret
//   secret-values.ts  the known secret values of one runtime (config, sign-ins, command output), and
//                     the text scrubber over them: `redact` (our diagnostic text), `redactKnown`
//                     (server data) and their deep forms; one instance per runtime, passed on
//   text.ts           the credential shapes `redact` guesses
//   data.ts           the data walker: by key and by string for our data, by string for a server's
//   redactor.ts       the same for a channel with secrets of its own (the inspector)
//   url.ts            a URL safe to print

export { describeConnection, OUR_DATA, redactData, SERVER_DATA } from './data.ts';
export { isSecretValue, MIN_SECRET_LENGTH, SECRET_KEY, SECRET_MAP_KEY, SECRET_NAME } from './key-policy.ts';
export { createRedactor, type Redactor } from './redactor.ts';
export {
  argSecrets,
  headerSecrets,
  REDACTED,
  SecretValues,
  secretsOfDefinition,
} from './secret-values.ts';
export { redactUrl } from './url.ts';
