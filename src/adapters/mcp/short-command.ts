// A short command whose stdout we need (`requestHeadersCommand`, `!command` values): run in its own
// process group, ended with the group on timeout, abort or too much output. Rejects with the reason
// only; callers never quote what the command printed (it is usually a secret).

import { formatDuration } from '../../duration.ts';
import { endProcessGroup, spawnInGroup } from './process-group.ts';

export class ShortCommandError extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = 'ShortCommandError';
  }
}

export interface ShortCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  stdin?: string;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
}

export function runShortCommand(run: ShortCommand): Promise<Buffer> {
  run.signal?.throwIfAborted();
  const child = spawnInGroup(run.command, run.args, {
    env: run.env,
    ...(run.cwd === undefined ? {} : { cwd: run.cwd }),
  });
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      void endProcessGroup(child, { graceMs: 0 });
      outcome();
    };
    const fail = (why: string) => finish(() => reject(new ShortCommandError(why)));
    const timer = setTimeout(() => fail(`timed out after ${formatDuration(run.timeoutMs)}`), run.timeoutMs);
    const onAbort = () => fail('aborted');
    run.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error: NodeJS.ErrnoException) =>
      fail(error.code === 'ENOENT' ? `command not found: ${run.command}` : `could not start (${error.code})`),
    );
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > run.maxBytes) fail(`printed more than ${Math.round(run.maxBytes / 1024)} KiB`);
      else chunks.push(chunk);
    });
    child.stderr.resume();
    child.on('close', (code, killedBy) => {
      if (code === 0) finish(() => resolve(Buffer.concat(chunks)));
      else fail(code === null ? `ended by ${killedBy}` : `exited with code ${code}`);
    });
    child.stdin.on('error', () => {});
    child.stdin.end(run.stdin ?? '');
  });
}
