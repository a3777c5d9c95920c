// Taking a consent back (issue 34): `pi-mcp-actors forget`, `/mcp forget` and the panel's key remove the
// remembered answer for servers of one project, so each asks again before it next starts.

import { consentFile, updateProjectConsents } from './project-consent.ts';

export interface Forgotten {
  /** Servers whose consent was removed. */
  forgotten: string[];
  /** Names asked for that had no consent for this project. */
  unknown: string[];
  /** Where consents are kept. */
  file: string;
}

/** Forgets the consents of `names` (every one of the project with `all`) for project `cwd`. */
export async function forgetConsent(
  agentDir: string,
  cwd: string,
  names: readonly string[],
  all: boolean,
): Promise<Forgotten> {
  const { forgotten, unknown } = await updateProjectConsents(agentDir, cwd, (project) => {
    const chosen = all ? Object.keys(project) : names.filter((name) => Object.hasOwn(project, name));
    for (const name of chosen) delete project[name];
    return { forgotten: chosen, unknown: all ? [] : names.filter((name) => !chosen.includes(name)) };
  });
  return { forgotten, unknown, file: consentFile(agentDir) };
}
