// Config diagnostics, told to the log and the user. Once per session: Pi's startup path tells them
// before the first model request, and the runtime it hands that session to does not tell them again
// (the session machine's `diagnosticsTold`).

import type { LoadedConfig } from '../config/types.ts';
import type { Logger } from '../logger.ts';
import type { NotifyLevel } from './host-port.ts';

export function reportConfigDiagnostics(
  config: LoadedConfig,
  logger: Logger,
  notify: (message: string, level: NotifyLevel) => void,
): void {
  for (const d of config.diagnostics) {
    const where = [d.file, d.path].filter(Boolean).join(' ');
    const text = `MCP config${where ? ` ${where}` : ''}: ${d.message}${d.fix ? ` (${d.fix})` : ''}`;
    if (d.level === 'info') logger.info(text);
    else {
      logger.warn(text);
      notify(text, d.level === 'error' ? 'error' : 'warning');
    }
  }
}
