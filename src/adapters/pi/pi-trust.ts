// Whether Pi's "the project is trusted" was a decision: `--approve`, an answer remembered in Pi's trust
// store for exactly this folder, or a folder Pi asks about (it holds `.pi/` resources or
// `.agents/skills`, so the user answered or their `defaultProjectTrust` did). Pi 1.5.2 trusts every
// other folder without asking (dist/core/project-trust.js, trust-manager.js): that default is not the
// user's consent to run the project's MCP servers (issue 23), so our own question is asked then. Nor is
// Pi's "Trust parent folder" (saved as the parent's path, and applied by Pi to every folder below it,
// even one cloned later): its dialog speaks of `.pi` resources only (issue 34).

import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readFileFromDisk } from '../../config/read-file.ts';

/** Pi 1.5.2's trust-requiring entries under `<cwd>/.pi` (trust-manager.js). */
const PI_TRUST_RESOURCES = [
  'settings.json',
  'mcp.json',
  'extensions',
  'skills',
  'prompts',
  'themes',
  'SYSTEM.md',
  'APPEND_SYSTEM.md',
];
const TRUST_FILE = 'trust.json';

export interface PiTrustInputs {
  cwd: string;
  agentDir: string;
  homeDir: string;
  argv: readonly string[];
}

export function piTrustIsExplicit({ cwd, agentDir, homeDir, argv }: PiTrustInputs): boolean {
  if (argv.includes('--approve') || argv.includes('-a')) return true;
  const project = canonical(cwd);
  const remembered = rememberedTrust(agentDir, project);
  // A parent's answer is what Pi applies here without asking: no decision about this folder.
  if (remembered !== undefined) return remembered.folder === project && remembered.trusted;
  return piAsksAbout(project, canonical(homeDir));
}

function piAsksAbout(project: string, home: string): boolean {
  const piDir = join(project, '.pi');
  if (existsSync(piDir) && PI_TRUST_RESOURCES.some((entry) => existsSync(join(piDir, entry)))) return true;
  const userSkills = join(home, '.agents', 'skills');
  for (let dir = project; ; dir = dirname(dir)) {
    const skills = join(dir, '.agents', 'skills');
    if (skills !== userSkills && existsSync(skills)) return true;
    if (dirname(dir) === dir) return false;
  }
}

/** Pi's remembered answer that applies to the folder: its own, or its nearest remembered parent's. */
function rememberedTrust(
  agentDir: string,
  project: string,
): { folder: string; trusted: boolean } | undefined {
  let data: unknown;
  try {
    const text = readFileFromDisk(join(agentDir, TRUST_FILE));
    data = text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const entries = data as Record<string, unknown>;
  for (let dir = project; ; dir = dirname(dir)) {
    const value = Object.hasOwn(entries, dir) ? entries[dir] : undefined;
    if (value === true || value === false) return { folder: dir, trusted: value };
    if (dirname(dir) === dir) return undefined;
  }
}

function canonical(path: string): string {
  try {
    return realpathSync(resolve(path));
  } catch {
    return resolve(path);
  }
}
