// A host's birth line: the line between a host and the session that started it, made of the host's
// stdin and stdout (src/adapters/host/spawn-host.ts gives it both as pipes). The session's hello and
// first attach go into it the moment the session wants them, before the host is even up; the host
// reads them the moment it listens. Proven by birth: the pipes' other ends are the session's alone,
// and the host's servers get stdio of their own, so none of them can speak on it.
//
// Two one-way pipes (Node gives the starting side only a writable stdin and a readable stdout) as one
// stream, as a socket is: a line channel (./line-channel.ts) reads and writes it the same way. Writes
// do not block: a session that stops reading holds up only its own line.

import { Socket } from 'node:net';
import { Duplex, Readable, Writable } from 'node:stream';
import type { LineSocket } from './line-channel.ts';

/** Set in the host's environment when its stdin and stdout are its birth line. */
export const BIRTH_LINE_ENV = 'PI_MCP_ACTORS_HOST_BIRTH_LINE';

class PairedPipes extends Duplex {
  constructor(
    private readonly input: Socket,
    private readonly output: Socket,
  ) {
    super({ allowHalfOpen: false });
    input.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) input.pause();
    });
    input.on('end', () => this.push(null));
    for (const pipe of [input, output]) {
      pipe.on('error', (error) => this.destroy(error));
      pipe.on('close', () => this.destroy());
    }
  }

  override _read(): void {
    this.input.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.output.write(chunk, done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.output.end(done);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.input.destroy();
    this.output.destroy();
    done(error);
  }

  setNoDelay(): this {
    return this;
  }

  ref(): this {
    this.input.ref();
    this.output.ref();
    return this;
  }

  unref(): this {
    this.input.unref();
    this.output.unref();
    return this;
  }
}

/** The line made of `input` (what the other side writes) and `output` (what it reads). */
export function pairedLine(input: Socket, output: Socket): LineSocket {
  return new PairedPipes(input, output);
}

/**
 * In the host: its birth line, when the session that started it gave it one (else undefined). Made of
 * Node's own `process.stdin` and `process.stdout` (Node makes them once, on first use, which may come
 * from anywhere: an ES import of `node:process` reads them), which are then replaced by streams that
 * read and write nothing, so no stray output reaches the session as a message.
 */
export function hostBirthLine(env: Record<string, string | undefined>): LineSocket | undefined {
  if (env[BIRTH_LINE_ENV] !== '1') return undefined;
  const { stdin, stdout } = process;
  if (!(stdin instanceof Socket) || !(stdout instanceof Socket)) return undefined;
  const inert = { configurable: true, enumerable: true };
  Object.defineProperty(process, 'stdin', { ...inert, value: new Readable({ read: () => {} }) });
  Object.defineProperty(process, 'stdout', {
    ...inert,
    value: new Writable({ write: (_c, _e, done) => done() }),
  });
  return pairedLine(stdin, stdout);
}
