// The actor inspector for Pi (--mcp-inspect or its environment variable): the flag, and the inspection
// the runtime is created with, attached to its target once the runtime loads. The inspector and its
// WebSocket client load only when inspection is asked for.

import { createDeferredInspection, type InspectionRelay } from '../../inspect/deferred.ts';
import { INSPECT_FLAG, inspectTargetFrom } from '../../inspect/target.ts';
import type { SecretValues } from '../../redact/index.ts';
import type { PiHost } from './pi-types.ts';

export interface PiInspectionDeps {
  pi: PiHost;
  env: Record<string, string | undefined>;
  /** Tells the user a warning (the setting is wrong). */
  warn(text: string): void;
  log(level: 'warn', text: string): void;
}

export function piInspection({ pi, env, warn, log }: PiInspectionDeps) {
  pi.registerFlag(INSPECT_FLAG, {
    type: 'string',
    description: 'Send redacted actor inspection events to ws://127.0.0.1:PORT/... or a .jsonl file',
  });
  const inspection = createDeferredInspection();
  return {
    inspect: inspection.inspect,
    /** The shared host's actors, for this session's inspection (the runtime hands it to its host line). */
    relay: inspection as InspectionRelay,
    dispose: () => inspection.dispose(),
    /** `known`: the session's known secrets, which the inspector's events are redacted with. */
    async attach(known: SecretValues): Promise<void> {
      const setting = inspectTargetFrom(env, pi.getFlag(INSPECT_FLAG));
      if (!setting.ok) {
        inspection.attach(undefined);
        warn(`MCP inspection is off: ${setting.error}`);
        return;
      }
      if (!setting.target) return inspection.attach(undefined);
      const target = setting.target;
      await import('../../inspect/inspector.ts').then(({ createInspection }) =>
        inspection.attach(
          createInspection(target, { known, onError: (m) => log('warn', `inspection: ${m}`) }),
        ),
      );
    },
  };
}
