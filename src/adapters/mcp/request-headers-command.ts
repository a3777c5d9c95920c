// pi-mcp-adapter's `requestHeadersCommand`: a trusted command run for every HTTP request to one
// server. It reads `{"version":1,"method","url","bodyBase64"}` on stdin and prints a JSON object of
// header values on stdout, which are set on the request last (over ours). Limits as there: exit 0
// within `timeoutMs` (default 10 s), at most 64 KiB of output; stderr is ignored. Its values are
// secrets; errors never quote its output.

import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestHeadersCommand } from '../../config/types.ts';
import { addSecrets, headerSecrets } from '../../redact.ts';
import { endProcessGroup, spawnInGroup } from './process-group.ts';

export const HEADERS_COMMAND_TIMEOUT_MS = 10_000;
const MAX_OUTPUT_BYTES = 64 * 1024;

/** Why the command gave no headers; the request is not sent. */
export class HeadersCommandError extends Error {
  constructor(why: string) {
    super(`its requestHeadersCommand ${why}, so the request was not sent`);
    this.name = 'HeadersCommandError';
  }
}

export function headersCommandFetch(config: RequestHeadersCommand, base: FetchLike): FetchLike {
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
): Promise<Record<string, string>> {
  signal?.throwIfAborted();
  const timeoutMs = config.timeoutMs ?? HEADERS_COMMAND_TIMEOUT_MS;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  const child = spawnInGroup(config.command, config.args, { env: { ...env, ...config.env } });
  const output = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (why: string) => {
      cleanup();
      void endProcessGroup(child, { graceMs: 0 });
      reject(new HeadersCommandError(why));
    };
    const timer = setTimeout(() => fail(`timed out after ${timeoutMs} ms`), timeoutMs);
    const onAbort = () => fail('aborted');
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error: NodeJS.ErrnoException) =>
      fail(
        error.code === 'ENOENT' ? `command not found: ${config.command}` : `could not start (${error.code})`,
      ),
    );
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES) fail('printed more than 64 KiB');
      else chunks.push(chunk);
    });
    child.stderr.resume();
    child.on('close', (code, killedBy) => {
      cleanup();
      void endProcessGroup(child, { graceMs: 0 });
      if (code === 0) resolve(Buffer.concat(chunks));
      else
        reject(new HeadersCommandError(code === null ? `ended by ${killedBy}` : `exited with code ${code}`));
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(envelope));
  });
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
  addSecrets(headers.flatMap(([, value]) => headerSecrets(value as string)));
  try {
    new Headers(headers as Array<[string, string]>);
  } catch {
    throw new HeadersCommandError('printed an invalid header');
  }
  return Object.fromEntries(headers) as Record<string, string>;
}
