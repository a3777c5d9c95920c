// One e2e test's world: a scripted model, an isolated agent dir, a probe-log path, and one cleanup.
import { join } from 'node:path';
import { stopHostsUnder } from '../../support/hosts.ts';
import { type AgentDir, type AgentDirOptions, createAgentDir } from './agent-dir.ts';
import { type FakeLlm, type FakeLlmOptions, startFakeLlm } from './fake-llm.ts';
import { killAllPi } from './run-pi.ts';

export interface World {
  llm: FakeLlm;
  dir: AgentDir;
  /** A free file path inside the temp root, e.g. for a fixture extension's probe log. */
  file(name: string): string;
  /** Kills any Pi still running, stops the shared host its sessions started, stops the model, removes the temp root. */
  cleanup(): Promise<void>;
}

export async function createWorld(
  opts: FakeLlmOptions & Omit<AgentDirOptions, 'llmBaseUrl'>,
): Promise<World> {
  const llm = await startFakeLlm({ script: opts.script, onExhausted: opts.onExhausted });
  const dir = createAgentDir({ ...opts, llmBaseUrl: llm.baseUrl });
  return {
    llm,
    dir,
    file: (name) => join(dir.root, name),
    async cleanup() {
      killAllPi(dir);
      await stopHostsUnder(dir.root);
      await llm.close();
      dir.cleanup();
    },
  };
}
