// The consent question for servers of project files, in Pi's terminal UI (issue 23): everything Allow
// would do (../../config/consent-lines.ts, the same lines as `pi-mcp-actors allow`); deny, allow it, or
// allow every waiting server of this project. Deny comes first, so neither Enter nor Escape allows.
// Loaded only when a project server waits for an answer.

import { type ConsentFacts, consentLines, renderConsentLines } from '../../config/consent-lines.ts';
import type { PendingServer } from '../../config/types.ts';
import { plainText } from '../../terminal-text.ts';
import type { PiDialogs } from './pi-types.ts';

export const ALLOW = 'Allow';
export const ALLOW_ALL = 'Allow all MCP servers of this project';
export const DENY = 'Deny (ask again next time)';
/** Pi's select has no preselection: the first answer is the one under the cursor. */
export const ANSWERS = [DENY, ALLOW, ALLOW_ALL];

/** What the question knows besides the entry (a sign-in the user has for it, the home folder). */
export type FactsOf = (server: PendingServer) => ConsentFacts;

/** Asks about each waiting server; returns those the user allowed. `denied` keys are not asked again. */
export async function askProjectConsent(
  dialogs: Pick<PiDialogs, 'select'>,
  cwd: string,
  pending: PendingServer[],
  denied: Set<string>,
  factsOf: FactsOf = () => ({}),
): Promise<PendingServer[]> {
  const allowed: PendingServer[] = [];
  const waiting = pending.filter((server) => !denied.has(server.key));
  for (const [index, server] of waiting.entries()) {
    const answer = await dialogs.select(consentQuestion(cwd, server, factsOf(server)), ANSWERS);
    if (answer === ALLOW) allowed.push(server);
    else if (answer === ALLOW_ALL) {
      allowed.push(...waiting.slice(index));
      break;
    } else denied.add(server.key);
  }
  return allowed;
}

export function consentQuestion(cwd: string, server: PendingServer, facts: ConsentFacts = {}): string {
  const show = (text: string) => plainText(text, 500).replace(/\n/g, ' ');
  return [
    `Start the MCP server "${show(server.name)}" from ${show(server.source.file)}?`,
    renderConsentLines(consentLines(server, facts)),
    `Project: ${show(cwd)} (the answer is remembered for it; a changed entry asks again)`,
  ].join('\n');
}

/** `/mcp allow` without a name: the waiting servers, each with what Allow would do (the project wrote these texts). */
export function waitingList(pending: PendingServer[], factsOf: FactsOf = () => ({})): string {
  const show = (text: string) => plainText(text, 500).replace(/\n/g, ' ');
  const blocks = pending.map((p) =>
    [`${show(p.name)} (${show(p.source.file)})`, renderConsentLines(consentLines(p, factsOf(p)))].join('\n'),
  );
  return `Waiting for consent:\n${blocks.join('\n')}\nAllow: /mcp allow <server> or /mcp allow --all`;
}
