// The CLI's temp folder (spilled tool output, resource blobs): made when the CLI starts a runtime and
// removed when it ends — normally, on an error, or on SIGINT/SIGTERM/SIGHUP. It is kept only when
// what the CLI printed names a file in it (a spilled output the user was told to open).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface CliTempDir {
  path: string;
  /** Called with every text printed: a text naming a file in the folder keeps it. */
  printed(text: string): void;
  /** Removes the folder (unless kept) and the signal handlers; safe to call more than once. */
  dispose(): void;
}

export function createCliTempDir(): CliTempDir {
  const path = mkdtempSync(join(tmpdir(), 'pi-mcp-actors-cli-'));
  let keep = false;
  let disposed = false;
  const remove = () => {
    if (!keep) rmSync(path, { recursive: true, force: true });
  };
  // A signal ends the CLI without its finally blocks: remove the folder, then end as the signal would.
  const onSignal = (signal: NodeJS.Signals) => {
    dispose();
    process.kill(process.pid, signal);
  };
  const dispose = () => {
    if (disposed) return;
    disposed = true;
    for (const signal of SIGNALS) process.off(signal, onSignal);
    process.off('exit', remove);
    try {
      remove();
    } catch {
      // Nothing more to do on the way out.
    }
  };
  for (const signal of SIGNALS) process.once(signal, onSignal);
  process.once('exit', remove);
  return {
    path,
    printed(text) {
      if (text.includes(`${path}/`) || text.includes(`${path}\\`)) keep = true;
    },
    dispose,
  };
}
