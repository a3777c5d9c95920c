// `pi-mcp-actors allow [server…] [--all]`: the user's consent to servers of the project's files, outside
// Pi's terminal UI (print, JSON and RPC modes never ask). Remembered like the dialog's answer: per
// project, keyed by what each entry runs. Without a name it lists the servers waiting for consent.

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
    for (const server of pending) io.out(describePending(server));
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

/** What a waiting server would run; the project wrote it, so no terminal control reaches the screen. */
function describePending(server: PendingServer): string {
  const show = (text: string) => plainText(text).replace(/\n/g, ' ');
  const env = [...server.envKeys.map(show), ...(server.inheritsEnv ? ['(and your whole environment)'] : [])];
  return [
    `${show(server.name)}  (${show(server.source.file)})`,
    `  runs: ${show(server.runs)}`,
    ...(server.changed ? [`  asked again: ${show(server.changed)}`] : []),
    ...(server.scripts
      ? [
          `  covers the content of: ${Object.keys(server.scripts).map(show).join(', ')} (not the files they load)`,
        ]
      : []),
    ...(env.length > 0 ? [`  environment: ${env.join(' ')}`] : []),
    ...(server.headerKeys.length > 0 ? [`  headers: ${server.headerKeys.map(show).join(', ')}`] : []),
    ...(server.replaces ? [`  instead of your server of that name in ${show(server.replaces)}`] : []),
  ].join('\n');
}
