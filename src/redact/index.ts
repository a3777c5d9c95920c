// The one redaction (DESIGN rule 6). Everything that leaves the runtime — tool results and progress,
// ToolSearch text, /mcp, notifications, the status bar, CLI text and JSON, logs, inspector events, the
// cache — goes through it on its way out:
//   key-policy.ts     which names say their value is a secret
//   secret-values.ts  the known secret values (config, sign-ins, command output)
//   text.ts           the text scrubber: `redact` (our diagnostic text) and `redactKnown` (server data)
//   data.ts           the data walker: by key and by string for our data, by string for a server's
//   redactor.ts       the same for a channel with secrets of its own (the inspector)
//   url.ts            a URL safe to print

export {
  describeConnection,
  OUR_DATA,
  redactData,
  redactDeep,
  redactKnownDeep,
  SERVER_DATA,
} from './data.ts';
export { isSecretValue, MIN_SECRET_LENGTH, SECRET_KEY, SECRET_MAP_KEY, SECRET_NAME } from './key-policy.ts';
export { createRedactor, type Redactor } from './redactor.ts';
export {
  addSecrets,
  addServerSecrets,
  argSecrets,
  headerSecrets,
  REDACTED,
  SecretValues,
  secretsOfDefinition,
  secretValues,
} from './secret-values.ts';
export { redact, redactKnown } from './text.ts';
export { redactUrl } from './url.ts';
