// `pi-mcp-actors allow [server…] [--all]`: the user's consent to servers of the project's files, outside
// Pi's terminal UI (print, JSON and RPC modes never ask). Remembered like the dialog's answer: per
// project, keyed by what each entry runs. Without a name it lists the servers waiting for consent, each
// with everything Allow would do (the consent question's own lines, ../config/consent-lines.ts).

import { tokenStoreFor } from '../auth/default-store.ts';
import { signInExists } from '../auth/sign-in-exists.ts';
import { consentLines, renderConsentLines } from '../config/consent-lines.ts';
import type { LoadOptions } from '../config/load.ts';
import { loadConfig } from '../config/load.ts';
import { readProjectConsent, rememberConsent } from '../config/project-consent.ts';
import type { PendingServer } from '../config/types.ts';
import { plainText } from '../terminal-text.ts';

export interface AllowIo {
  out(text: string): void;
  err(text: string): void;
}

export async function runAllowCommand(
  load: Omit<LoadOptions, 'projectTrusted' | 'projectConsent'>,
  names: string[],
  all: boolean,
  io: AllowIo,
): Promise<number> {
  const config = loadConfig({
    ...load,
    projectTrusted: true,
    projectConsent: readProjectConsent(load.agentDir, load.cwd),
  });
  const pending = config.pending ?? [];
  if (!all && names.length === 0) {
    if (pending.length === 0) io.out(`No project server of ${load.cwd} is waiting for consent.`);
    for (const server of pending) io.out(describePending(server, load));
    return 0;
  }
  const unknown = names.filter((name) => !pending.some((server) => server.name === name));
  for (const name of unknown)
    io.err(
      `"${name}" is not a server of this project's files waiting for consent (see: pi-mcp-actors allow).`,
    );
  if (unknown.length > 0) return 1;
  const chosen = all ? pending : pending.filter((server) => names.includes(server.name));
  if (chosen.length > 0) await rememberConsent(load.agentDir, load.cwd, chosen);
  for (const server of chosen)
    io.out(plainText(`allowed ${server.name} for ${load.cwd}: ${server.runs}`).replace(/\n/g, ' '));
  if (chosen.length === 0) io.out(`No project server of ${load.cwd} is waiting for consent.`);
  return 0;
}

/** What Allow would do for a waiting server; the project wrote it, so no terminal control reaches the screen. */
function describePending(server: PendingServer, load: Pick<LoadOptions, 'agentDir' | 'homeDir'>): string {
  const signedIn = signInExists(tokenStoreFor(load.agentDir), server.name, server.fields);
  const heading = plainText(`${server.name}  (${server.source.file})`).replace(/\n/g, ' ');
  return [heading, renderConsentLines(consentLines(server, { homeDir: load.homeDir, signedIn }))].join('\n');
}
