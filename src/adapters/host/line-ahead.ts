// A session's line to its host, ready ahead of its first use, from the session's first model request
// (./spawn-host.ts): the birth line of the host it starts then (src/host/birth-line.ts; its hello goes
// in at once, before the host is up), or a line to the host already there, connected and greeted once
// it listens. The session's first connect (the ToolSearch's) then takes the line as it is
// (./host-client.ts), and its attach leaves at once, instead of waiting for a connect, a hello, a
// welcome and a proof while Pi's thread is busy with the search's turn; on a birth line it waits in the
// pipe for the host to read as it comes up.
//
// Light on purpose (no XState, no host client): it runs on Pi's thread as the request is on its way.
// On a socket, nothing is sent before the host has proven the key (src/host/welcome.ts), as on any
// line; a birth line's other end is the process this one started, so what is put on it (an attach, its
// env values) waits for nothing but that process. The line does not keep the process alive, and a line
// nobody took stands by in the host without holding back its stop (src/machines/host-line.machine.ts).

import { connect, type Socket } from 'node:net';
import { basename } from 'node:path';
import { newNonce, sessionProof } from '../../host/host-key.ts';
import type { LineSocket } from '../../host/line-channel.ts';
import { packageVersion } from '../../host/paths.ts';
import { helloOf } from '../../host/protocol.ts';
import { welcomeProblem } from '../../host/welcome.ts';
import { LineSplitter } from '../mcp/line-splitter.ts';

/** How long a greeting ahead may take; a host that has not welcomed by then is left to the first connect. */
const AHEAD_GREETING_MS = 4_000;

export interface GreetedLine {
  socket: LineSocket;
  /** The host's pid and version, from its welcome (a birth line's: the host started, this build's). */
  pid: number;
  version: string;
  /** A birth line: its hello's nonce, for the welcome still to come (./host-client.ts checks it). */
  born?: { nonce: string };
}

interface Ahead {
  socket: LineSocket;
  key: Buffer;
  label: string;
  greeted: Promise<GreetedLine | undefined>;
}

/** Lines greeted (or being greeted) ahead and not yet taken, per socket path. */
const ahead = new Map<string, Ahead>();

/** How this process is listed by `pi-mcp-actors host`. */
export function defaultLabel(): string {
  const script = process.argv[1];
  return script ? `${basename(script)} (pid ${process.pid})` : `pid ${process.pid}`;
}

/**
 * Greets the host at `socketPath` ahead of use (on `socket` when already connecting, the pre-start's
 * probe), unless a line is greeted or being greeted there already. A failure says nothing: the first
 * connect opens its own line and tells what went wrong.
 */
export function greetAhead(socketPath: string, key: Buffer, build: string, connecting?: Socket): void {
  if (ahead.has(socketPath)) return void connecting?.destroy();
  const label = defaultLabel();
  const socket = connecting ?? connect(socketPath);
  socket.unref();
  const entry: Ahead = { socket, key, label, greeted: greet(socket, key, build, label) };
  ahead.set(socketPath, entry);
  const forget = () => {
    if (ahead.get(socketPath) === entry) ahead.delete(socketPath);
  };
  void entry.greeted.then((line) => {
    if (!line) return forget();
    // Closed by the host before anyone took it (the host stopped): nothing to take.
    socket.once('close', forget);
  });
}

/**
 * Keeps the birth line of the host this process just started (pid `pid`) for the first connect, its
 * hello written now: the host reads it, and whatever the connect puts after it, once it listens.
 */
export function keepBirthLine(
  socketPath: string,
  line: LineSocket,
  key: Buffer,
  build: string,
  pid: number,
): void {
  const label = defaultLabel();
  const nonce = newNonce();
  line.unref();
  line.on('error', () => {});
  line.write(`${JSON.stringify(helloOf(build, label, nonce))}\n`);
  const greeted: GreetedLine = { socket: line, pid, version: packageVersion(), born: { nonce } };
  // It replaces a line whose greeting failed and is still to be forgotten (the probe that found no host).
  const entry: Ahead = { socket: line, key, label, greeted: Promise.resolve(greeted) };
  ahead.set(socketPath, entry);
  // Closed before anyone took it (the host exited: another host won the socket): nothing to take.
  line.once('close', () => {
    if (ahead.get(socketPath) === entry) ahead.delete(socketPath);
  });
}

/**
 * The line ready ahead at `socketPath` for this key and label (the session's), handed over once
 * (undefined when there is none, it failed, or it closed): the caller reads and writes the socket from
 * now on.
 */
export function takeLineAhead(
  socketPath: string,
  key: Buffer,
  label: string,
): Promise<GreetedLine | undefined> | undefined {
  const entry = ahead.get(socketPath);
  // Another client of this process (a status probe, the CLI's label): it opens its own line.
  if (!entry?.key.equals(key) || entry.label !== label) return undefined;
  ahead.delete(socketPath);
  // Someone waits for it now: a greeting still under way keeps the process alive, as a connect would.
  entry.socket.ref();
  return entry.greeted.then((line) => {
    if (!line || line.socket.destroyed || !line.socket.writable) return undefined;
    line.socket.removeAllListeners('data');
    line.socket.removeAllListeners('close');
    line.socket.removeAllListeners('error');
    return line;
  });
}

/** Hello, the host's welcome checked, the session's proof: the line is then the host's newcomer. */
function greet(socket: Socket, key: Buffer, build: string, label: string): Promise<GreetedLine | undefined> {
  return new Promise((resolve) => {
    const nonce = newNonce();
    const lines = new LineSplitter();
    let answered = false;
    const fail = () => {
      clearTimeout(deadline);
      if (!answered) resolve(undefined);
      answered = true;
      socket.destroy();
    };
    const deadline = setTimeout(fail, AHEAD_GREETING_MS);
    deadline.unref();
    socket.setNoDelay(true);
    socket.on('error', fail);
    socket.on('close', fail);
    socket.once('connect', () => socket.write(`${JSON.stringify(helloOf(build, label, nonce))}\n`));
    socket.on('data', (chunk: Buffer) => {
      // Anything after the welcome, before the line is taken, is unexpected: the line is not used.
      if (answered) return fail();
      const [first, ...more] = lines.push(chunk);
      if (first === undefined) return;
      let welcome: unknown;
      try {
        welcome = JSON.parse(first);
      } catch {
        return fail();
      }
      if (more.length > 0 || welcomeProblem(welcome, { build, key, nonce })) return fail();
      const { pid, version, nonce: hostNonce } = welcome as { pid: number; version: string; nonce: string };
      answered = true;
      clearTimeout(deadline);
      socket.off('close', fail);
      socket.write(`${JSON.stringify({ t: 'proof', proof: sessionProof(key, nonce, hostNonce) })}\n`);
      resolve({ socket, pid, version });
    });
  });
}
