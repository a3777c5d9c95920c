// Config diagnostics, told once per loaded config: Pi's startup path tells them before the first model
// request, and the runtime that starts later with the same config must not tell them again.

import type { LoadedConfig } from '../config/types.ts';
import type { Logger } from '../logger.ts';
import type { NotifyLevel } from './host-port.ts';

const reported = new WeakSet<LoadedConfig>();

export function reportConfigDiagnostics(
  config: LoadedConfig,
  logger: Logger,
  notify: (message: string, level: NotifyLevel) => void,
): void {
  if (reported.has(config)) return;
  reported.add(config);
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
