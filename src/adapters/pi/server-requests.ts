// How Pi answers what a server asks: elicitation through Pi's dialogs, roots from the session's
// working directory, sampling on Pi's model.

import { pathToFileURL } from 'node:url';
import type { Settings } from '../../config/types.ts';
import type { HostRequests } from '../../ports/mcp.ts';
import type { SecretValues } from '../../redact/index.ts';
import { createElicitor } from './elicitation.ts';
import type { PiContext } from './pi-types.ts';
import { createSampler } from './sampling.ts';

export interface PiServerRequests {
  forServer(server: string, settings: Pick<Settings, 'samplingAutoApprove'>): HostRequests;
  /** A new Pi session: sampling approvals are asked for again. */
  newSession(): void;
}

export function piServerRequests(
  currentContext: () => PiContext | undefined,
  secrets: SecretValues,
): PiServerRequests {
  const elicit = createElicitor(currentContext, secrets);
  const sampler = createSampler(currentContext, secrets);
  return {
    newSession: sampler.forgetApprovals,
    forServer: (server, settings) => ({
      elicit: (request, signal) => elicit(server, request, signal),
      sample: (request, signal) => sampler.sample(server, request, signal, settings.samplingAutoApprove),
      roots: () => {
        const cwd = currentContext()?.cwd ?? process.cwd();
        return [{ uri: pathToFileURL(cwd).href, name: 'working directory' }];
      },
    }),
  };
}
