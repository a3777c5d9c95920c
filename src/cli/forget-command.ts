// `pi-mcp-actors forget [server…|--all]`: takes back the consent given to servers of the project's files
// (`allow`, Pi's dialog or panel); each then waits for consent again. Without a name it lists the
// servers of the project that have one.

import { forgetConsent } from '../config/consent-forget.ts';
import { consentedServers, consentFile } from '../config/project-consent.ts';
import { plainLine } from '../terminal-text.ts';
import type { AllowIo } from './allow-command.ts';

export async function runForgetCommand(
  where: { agentDir: string; cwd: string },
  names: string[],
  all: boolean,
  io: AllowIo,
): Promise<number> {
  const { agentDir, cwd } = where;
  if (!all && names.length === 0) {
    const allowed = consentedServers(agentDir, cwd);
    if (allowed.length === 0) io.out(`No server of ${cwd} has your consent (${consentFile(agentDir)}).`);
    else
      io.out(
        `Allowed for ${cwd} (in ${consentFile(agentDir)}): ${allowed.map(plainLine).join(', ')}\nForget with: pi-mcp-actors forget <server>… or --all`,
      );
    return 0;
  }
  const { forgotten, unknown, file } = await forgetConsent(agentDir, cwd, names, all);
  for (const name of unknown)
    io.err(`"${plainLine(name)}" has no consent for this project (see: pi-mcp-actors forget).`);
  for (const name of forgotten) io.out(`forgot ${plainLine(name)} for ${cwd} (in ${file}): it asks again`);
  if (all && forgotten.length === 0) io.out(`No server of ${cwd} has your consent (${file}).`);
  return unknown.length > 0 ? 1 : 0;
}
