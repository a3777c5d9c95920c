// pi-mcp-adapter's `requestHeadersCommand`: a trusted command run for every HTTP request to one
// server. It reads `{"version":1,"method","url","bodyBase64"}` on stdin and prints a JSON object of
// header values on stdout, which are set on the request last (over ours). Limits as there: exit 0
// within `timeoutMs` (default 10 s), at most 64 KiB of output; stderr is ignored. Its values are
// secrets; errors never quote its output.

import type { FetchLike } from '@modelcontextprotocol/client';
import type { RequestHeadersCommand } from '../../config/types.ts';
import { headerSecrets } from '../../redact/index.ts';
import { runShortCommand, ShortCommandError } from './short-command.ts';

export const HEADERS_COMMAND_TIMEOUT_MS = 10_000;
const MAX_OUTPUT_BYTES = 64 * 1024;

/** Why the command gave no headers; the request is not sent. */
export class HeadersCommandError extends Error {
  constructor(why: string) {
    super(`its requestHeadersCommand ${why}, so the request was not sent`);
    this.name = 'HeadersCommandError';
  }
}

/** `learnSecrets`: where the header values the command prints go (they are secrets). */
export function headersCommandFetch(
  config: RequestHeadersCommand,
  base: FetchLike,
  learnSecrets: (values: string[]) => void,
): FetchLike {
  return async (input, init) => {
    const request = new Request(input, init);
    const body = Buffer.from(await request.clone().arrayBuffer());
    const headers = await runHeadersCommand(
      config,
      {
        version: 1,
        method: request.method.toUpperCase(),
        url: request.url,
        bodyBase64: body.toString('base64'),
      },
      init?.signal ?? undefined,
      learnSecrets,
    );
    const merged = new Headers(request.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    const bodyless = request.method === 'GET' || request.method === 'HEAD';
    return base(request.url, {
      method: request.method,
      headers: merged,
      ...(bodyless ? {} : { body }),
      ...(init?.signal ? { signal: init.signal } : {}),
      redirect: request.redirect,
    });
  };
}

async function runHeadersCommand(
  config: RequestHeadersCommand,
  envelope: Record<string, unknown>,
  signal: AbortSignal | undefined,
  learnSecrets: (values: string[]) => void,
): Promise<Record<string, string>> {
  const timeoutMs = config.timeoutMs ?? HEADERS_COMMAND_TIMEOUT_MS;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  let output: Buffer;
  try {
    output = await runShortCommand({
      command: config.command,
      args: config.args,
      env: { ...env, ...config.env },
      stdin: JSON.stringify(envelope),
      timeoutMs,
      maxBytes: MAX_OUTPUT_BYTES,
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    throw error instanceof ShortCommandError ? new HeadersCommandError(error.why) : error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(output.toString('utf8'));
  } catch {
    throw new HeadersCommandError('did not print JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HeadersCommandError('must print a JSON object of headers');
  }
  const headers = Object.entries(parsed);
  if (headers.some(([, value]) => typeof value !== 'string')) {
    throw new HeadersCommandError('printed a header value that is not a string');
  }
  learnSecrets(headers.flatMap(([, value]) => headerSecrets(value as string)));
  try {
    new Headers(headers as Array<[string, string]>);
  } catch {
    throw new HeadersCommandError('printed an invalid header');
  }
  return Object.fromEntries(headers) as Record<string, string>;
}
