// The consent question for servers of project files, in Pi's terminal UI (issue 23): what each would
// run and which environment it gets; allow it, allow every waiting server of this project, or deny.
// Loaded only when a project server waits for an answer.

import type { PendingServer } from '../../config/types.ts';
import { plainText } from '../../terminal-text.ts';
import type { PiDialogs } from './pi-types.ts';

export const ALLOW = 'Allow';
export const ALLOW_ALL = 'Allow all MCP servers of this project';
export const DENY = 'Deny (ask again next time)';

/** Asks about each waiting server; returns those the user allowed. `denied` keys are not asked again. */
export async function askProjectConsent(
  dialogs: Pick<PiDialogs, 'select'>,
  cwd: string,
  pending: PendingServer[],
  denied: Set<string>,
): Promise<PendingServer[]> {
  const allowed: PendingServer[] = [];
  const waiting = pending.filter((server) => !denied.has(server.key));
  for (const [index, server] of waiting.entries()) {
    const answer = await dialogs.select(consentQuestion(cwd, server), [ALLOW, ALLOW_ALL, DENY]);
    if (answer === ALLOW) allowed.push(server);
    else if (answer === ALLOW_ALL) {
      allowed.push(...waiting.slice(index));
      break;
    } else denied.add(server.key);
  }
  return allowed;
}

export function consentQuestion(cwd: string, server: PendingServer): string {
  const show = (text: string) => plainText(text, 500).replace(/\n/g, ' ');
  const env = [
    ...(server.envKeys.length > 0 ? [server.envKeys.map(show).join(', ')] : []),
    ...(server.inheritsEnv ? ['and your whole environment'] : []),
  ];
  return [
    `Start the MCP server "${show(server.name)}" from ${show(server.source.file)}?`,
    `  runs: ${show(server.runs)}`,
    ...(server.changed ? [`  asked again: ${show(server.changed)}`] : []),
    ...(server.scripts ? [`  the answer covers the content of: ${scriptsOf(server, show)}`] : []),
    ...(env.length > 0 ? [`  environment: ${env.join(' ')}`] : []),
    ...(server.headerKeys.length > 0 ? [`  headers: ${server.headerKeys.map(show).join(', ')}`] : []),
    ...(server.replaces ? [`  instead of your server of that name in ${show(server.replaces)}`] : []),
    `Project: ${show(cwd)} (the answer is remembered for it; a changed entry asks again)`,
  ].join('\n');
}

/** The project files the entry names directly: a change to one asks again (files they load do not). */
export function scriptsOf(server: PendingServer, show: (text: string) => string): string {
  return `${Object.keys(server.scripts ?? {})
    .map(show)
    .join(', ')} (not the files they load)`;
}

/** `/mcp allow` without a name: the waiting servers, one line each (the project wrote these texts). */
export function waitingList(pending: PendingServer[]): string {
  const show = (text: string) => plainText(text, 500).replace(/\n/g, ' ');
  const lines = pending.map((p) => `${show(p.name)} (${show(p.source.file)}): ${show(p.runs)}`);
  return `Waiting for consent:\n${lines.join('\n')}\nAllow: /mcp allow <server> or /mcp allow --all`;
}
