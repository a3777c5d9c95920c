// Loads ./full-start.ts on first need (the config loader, the cache, the log, the one redaction) and
// builds what the start path and the runtime share from it: the session's known secrets, the log, the
// cache store and the registry of what Pi has of ours.

import { join } from 'node:path';
import type { CacheStore } from '../../catalog/cache.ts';
import { LOG_FILE } from '../../config/defaults.ts';
import type { Logger } from '../../logger.ts';
import type { SecretValues } from '../../redact/index.ts';
import type { RegisteredTools } from '../../session/registered-tools.ts';
import { type Lazy, lazily } from './lazily.ts';

export type FullStart = typeof import('./full-start.ts') & {
  /** Made here, once: the start path, the log, the runtime and the inspector redact with it. */
  secrets: SecretValues;
  logger: Logger;
  cache: CacheStore;
  registry: RegisteredTools;
};

export function fullStartLoader(agentDir: string, cacheFile: string): Lazy<FullStart> {
  return lazily(async (): Promise<FullStart> => {
    const module = await import('./full-start.ts');
    const secrets = new module.SecretValues();
    const logger = module.createLogger({ file: join(agentDir, LOG_FILE), known: secrets });
    const cache = module.createCacheStore({ file: cacheFile, logger });
    // What Pi has of ours: the start path and the runtime register through it (HostPort.registry).
    // Nothing of ours is registered before this module loads, so none is needed before.
    return { ...module, secrets, logger, cache, registry: new module.RegisteredTools() };
  });
}
