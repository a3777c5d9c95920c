// One line typed or piped in, for the CLI's questions (the sign-in's "paste the redirect URL"). One
// reader per input, so piped lines are never lost between questions; on a TTY the question is shown
// and the typing echoed. The reader is closed when the asking side's signal aborts (the sign-in
// ended, maybe through the loopback), which gives the terminal back and lets the process exit.

import { createInterface, type Interface } from 'node:readline';

export type PromptLine = (question: string, signal: AbortSignal) => Promise<string | undefined>;

export function promptLineFrom(
  input: NodeJS.ReadableStream & { isTTY?: boolean },
  output: NodeJS.WritableStream,
): PromptLine {
  const tty = input.isTTY === true;
  let reader: Interface | undefined;
  let closed = false;
  const lines: string[] = [];
  const waiters = new Set<(line: string | undefined) => void>();
  const close = () => {
    if (closed) return;
    closed = true;
    reader?.close();
  };
  const open = () => {
    if (reader || closed) return;
    reader = createInterface({ input, ...(tty ? { output, terminal: true } : { terminal: false }) });
    reader.on('line', (line) => {
      const [waiter] = waiters;
      if (waiter) waiter(line);
      else lines.push(line);
    });
    reader.on('close', () => {
      closed = true;
      for (const waiter of [...waiters]) waiter(undefined);
    });
  };
  return (question, signal) => {
    if (signal.aborted || closed) return Promise.resolve(undefined);
    signal.addEventListener(
      'abort',
      () => {
        if (tty && waiters.size > 0) output.write('\n');
        close();
      },
      { once: true },
    );
    open();
    if (lines.length > 0) return Promise.resolve(lines.shift());
    if (tty) {
      reader!.setPrompt(question);
      reader!.prompt();
    }
    return new Promise((resolve) => {
      const waiter = (line: string | undefined) => {
        waiters.delete(waiter);
        resolve(line);
      };
      waiters.add(waiter);
    });
  };
}
