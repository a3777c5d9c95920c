// `!command` values (src/config/command-values.ts) become real values when a server connects: each
// command runs in a shell with the limits Pi and pi-mcp-adapter use (10 s, 1 MiB), its trimmed output
// is a secret, and a failure names the key, never the output.

import type { CommandValue } from '../../config/command-values.ts';
import type { ServerDefinition } from '../../config/types.ts';
import { ConnectError } from '../../ports/mcp.ts';
import { headerSecrets } from '../../redact/index.ts';
import { runShortCommand, ShortCommandError } from './short-command.ts';

const TIMEOUT_MS = 10_000;
const MAX_BYTES = 1024 * 1024;

/**
 * The definition with every `!command` value run and filled in; unchanged when it has none. Each
 * output goes to `learnSecrets`.
 */
export async function withCommandValues(
  def: ServerDefinition,
  learnSecrets: (values: string[]) => void,
  signal?: AbortSignal,
): Promise<ServerDefinition> {
  const commands = def.commandValues;
  if (!commands || commands.length === 0) return def;
  const outputs = await Promise.all(commands.map((value) => runValue(def, value, learnSecrets, signal)));
  const resolved: ServerDefinition = { ...def, env: { ...def.env }, headers: { ...def.headers } };
  delete resolved.commandValues;
  commands.forEach((value, index) => {
    const output = outputs[index]!;
    if (value.field === 'bearerToken') resolved.bearerToken = output;
    else if (value.key !== undefined) resolved[value.field][value.key] = output;
  });
  return resolved;
}

async function runValue(
  def: ServerDefinition,
  value: CommandValue,
  learnSecrets: (values: string[]) => void,
  signal?: AbortSignal,
): Promise<string> {
  const env: Record<string, string> = {};
  for (const [key, text] of Object.entries(process.env)) if (text !== undefined) env[key] = text;
  const shell =
    process.platform === 'win32'
      ? { command: process.env.ComSpec ?? 'cmd.exe', args: ['/d', '/s', '/c', value.command] }
      : { command: '/bin/sh', args: ['-c', value.command] };
  let why: string;
  try {
    const output = (
      await runShortCommand({
        ...shell,
        env,
        timeoutMs: TIMEOUT_MS,
        maxBytes: MAX_BYTES,
        ...(signal ? { signal } : {}),
      })
    )
      .toString('utf8')
      .trim();
    if (output !== '') {
      learnSecrets(value.field === 'headers' ? headerSecrets(output) : [output]);
      return output;
    }
    why = 'printed nothing';
  } catch (error) {
    if (!(error instanceof ShortCommandError)) throw error;
    if (error.why === 'aborted')
      throw new ConnectError('aborted', `Connecting to "${def.name}" was cancelled`);
    why = error.why;
  }
  throw new ConnectError(
    'spawn',
    `Cannot connect to "${def.name}": the command of ${value.keyPath} (in ${def.source.file}) ${why}, so the server was not started. Fix that command (or the sign-in it reads, e.g. run it in a terminal), then call again.`,
  );
}
