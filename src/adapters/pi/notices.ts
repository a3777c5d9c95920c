// Text for the user and for the log file, both through the one redaction of ./full-start.ts: shown at
// once when that module is loaded, else as soon as it is.

import type { NotifyLevel } from '../../session/host-port.ts';
import { plainText } from '../../terminal-text.ts';
import type { FullStart } from './full-start-loader.ts';
import type { Lazy } from './lazily.ts';
import type { PiContext } from './pi-types.ts';

export interface Notices {
  /** Shows redacted text to the user of `target` (nothing without a target). */
  tell(target: PiContext | undefined, raw: string, level: NotifyLevel): void;
  /** Writes to the log file (its logger redacts). */
  log(level: 'warn' | 'error', text: string): void;
}

export function notices(fullStart: Lazy<FullStart>): Notices {
  return {
    tell(target, raw, level) {
      if (!target) return;
      const loaded = fullStart.made();
      if (loaded) show(target, loaded.secrets.redact(raw), level);
      else
        void fullStart.get().then(
          (loaded) => show(target, loaded.secrets.redact(raw), level),
          () => undefined,
        );
    },
    log(level, text) {
      void fullStart.get().then(
        (loaded) => loaded.logger[level](text),
        () => undefined,
      );
    },
  };
}

/** Where text for the user goes: a notification where Pi has UI, stdout in print mode, nothing in JSON mode. */
function show(ctx: PiContext, text: string, level: NotifyLevel) {
  if (ctx.hasUI) ctx.ui.notify(text, level);
  else if (ctx.mode === 'print') process.stdout.write(`${plainText(text)}\n`);
}
