// The external identity token of a `jwt-bearer` sign-in (`oauth.identityToken`): read afresh at every
// token request, since workload tokens rotate (a projected service-account file, a CI OIDC token, a
// command that asks the identity provider). Errors name the source, never the token.

import { readFile } from 'node:fs/promises';
import type { IdentityTokenSource } from '../../../config/types.ts';
import { runShortCommand } from '../short-command.ts';

const COMMAND_TIMEOUT_MS = 30_000;
const MAX_TOKEN_BYTES = 64 * 1024;

export async function readIdentityToken(
  source: IdentityTokenSource | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  let token: string | undefined;
  let where: string;
  if (source?.env !== undefined) {
    where = `environment variable ${source.env}`;
    token = env[source.env];
  } else if (source?.file !== undefined) {
    where = `file ${source.file}`;
    token = await readFile(source.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new Error(`oauth.identityToken: ${where} cannot be read (${error.code ?? 'unreadable'})`);
    });
  } else if (source?.command?.[0] !== undefined) {
    const [command, ...args] = source.command;
    where = `command ${command}`;
    const out = await runShortCommand({
      command,
      args,
      env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
      timeoutMs: COMMAND_TIMEOUT_MS,
      maxBytes: MAX_TOKEN_BYTES,
    }).catch((error: Error) => {
      throw new Error(`oauth.identityToken: ${where} failed (${error.message})`);
    });
    token = out.toString('utf8');
  } else {
    throw new Error('oauth.identityToken names no env, file or command');
  }
  const trimmed = token?.trim();
  if (!trimmed) throw new Error(`oauth.identityToken: ${where} holds no token`);
  return trimmed;
}
