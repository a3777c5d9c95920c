// What a Pi session's config is read from (the --mcp-config flag, Pi's own MCP servers, the folder and
// its trust) and the load itself, recording what it read for the start record (./start-record.ts).

import type { LiveRead } from '../../config/last-good.ts';
import { readFileFromDisk } from '../../config/read-file.ts';
import type { LoadedConfig } from '../../config/types.ts';
import type { StartRequest } from '../../machines/session.machine.ts';
import type { FullStart } from './full-start-loader.ts';
import type { PiHost } from './pi-types.ts';
import type { ConfigTexts } from './start-phase.ts';
import { recordingInputs, type StartInputs, startKey } from './start-record.ts';

const CONFIG_FLAG = 'mcp-config';

export function registerConfigFlag(pi: PiHost): void {
  pi.registerFlag(CONFIG_FLAG, {
    type: 'string',
    description: 'Path of an MCP config file to use instead of ~/.pi/agent/mcp.json',
  });
}

function configPathFlag(pi: PiHost): string | undefined {
  const flag = pi.getFlag(CONFIG_FLAG);
  return typeof flag === 'string' && flag ? flag : undefined;
}

/** The start record's key for this request: everything besides file contents that decides the load. */
export function startKeyOf(pi: PiHost, homeDir: string, request: StartRequest): string {
  const configPath = configPathFlag(pi);
  return startKey({
    cwd: request.cwd,
    homeDir,
    projectTrusted: request.projectTrusted,
    ...(request.askConsent ? { askConsent: true } : {}),
    ...(configPath ? { configPath } : {}),
    ...(pi.getMcpServers ? { piServers: pi.getMcpServers() } : {}),
  });
}

export interface SessionConfigSource {
  pi: PiHost;
  agentDir: string;
  homeDir: string;
  env: Record<string, string | undefined>;
  /** Config texts the start record read: taken instead of reading the files again. */
  texts: ConfigTexts | undefined;
  /** A live edit's read (default: the files from disk): a broken file or setting keeps its last good version. */
  live?: LiveRead | undefined;
}

/** Reads the config, and says what it read (for the start record). */
export function loadSessionConfig(
  { loadConfig, readProjectConsent }: FullStart,
  { pi, agentDir, homeDir, env, texts, live }: SessionConfigSource,
  request: StartRequest,
): { config: LoadedConfig; inputs: StartInputs | undefined } {
  const configPath = configPathFlag(pi);
  const readFile = live?.readFile ?? readFileFromDisk;
  const seen = recordingInputs(
    env,
    texts ? (path) => (texts.has(path) ? texts.get(path) : readFile(path)) : readFile,
  );
  const config = loadConfig({
    agentDir,
    cwd: request.cwd,
    homeDir,
    env: seen.env,
    readFile: seen.readFile,
    projectTrusted: request.projectTrusted,
    // Pi trusted the folder without asking: project servers need the user's own consent.
    ...(request.askConsent
      ? { projectConsent: readProjectConsent(agentDir, request.cwd, seen.readFile) }
      : {}),
    ...(configPath ? { configPath } : {}),
    ...(live ? { lastGoodSettings: live.lastGoodSettings } : {}),
    ...(pi.getMcpServers ? { piServers: pi.getMcpServers() } : {}),
  });
  return { config, inputs: seen.inputs() };
}
