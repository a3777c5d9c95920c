// The session's recorders: the metadata-cache writer, the protocol trace and the call statistics. Each
// is an actor the session invokes while it is open (src/machines/session.machine.ts). What one holds is
// keyed by its actor and released when that stops; its cleanup flushes what is still pending, and the
// session's shutdown waits for that flush before it is idle (a short session's writes are on disk).

import { type AnyActorRef, type CallbackActorLogic, type EventObject, fromCallback } from 'xstate';
import { createTraceLog, traceFile } from '../adapters/mcp/trace.ts';
import { type CacheStore, cachedServerFromCatalog } from '../catalog/cache.ts';
import type { Logger } from '../logger.ts';
import type { CacheWrite, RecorderInput } from '../machines/session.machine.ts';
import type { TraceLog } from '../ports/trace.ts';
import type { SecretValues } from '../redact/index.ts';
import { type CallStats, createCallStats } from '../tools/stats.ts';

interface Held {
  trace?: TraceLog;
  stats?: CallStats;
  /** Resolves once everything recorded so far is written. */
  flush(): Promise<void>;
}

export interface SessionRecorders {
  cacheWriter: CallbackActorLogic<CacheWrite, RecorderInput>;
  trace: CallbackActorLogic<EventObject, RecorderInput>;
  stats: CallbackActorLogic<EventObject, RecorderInput>;
  /** The trace log a running `trace` recorder holds (none when no server traces). */
  traceOf(ref: AnyActorRef | undefined): TraceLog | undefined;
  /** The call statistics a running `stats` recorder holds (none without settings.captureStats). */
  statsOf(ref: AnyActorRef | undefined): CallStats | undefined;
  /** Waits for the recorders' writes so far (never rejects). */
  flush(refs: AnyActorRef[]): Promise<void>;
}

export function sessionRecorders(
  cache: CacheStore | undefined,
  logger: Logger,
  secrets: SecretValues,
): SessionRecorders {
  const held = new WeakMap<AnyActorRef, Held>();
  const hold = (self: AnyActorRef, what: Held) => {
    held.set(self, what);
    return () => {
      held.delete(self);
      void what.flush();
    };
  };
  return {
    cacheWriter: fromCallback<CacheWrite, RecorderInput>(({ input, self, receive }) => {
      if (!cache) return;
      // The store writes one at a time: the last write settles after every earlier one.
      let last: Promise<void> = Promise.resolve();
      receive(({ name, catalog }) => {
        const definition = input.config.servers.find((d) => d.name === name);
        if (!definition) return;
        last = cache
          // The server's lists as sent but for the secrets we know: the next session reads what this one did.
          .write({ [name]: secrets.redactKnownDeep(cachedServerFromCatalog(definition, catalog)) })
          .catch((error: unknown) => logger.warn(`cache write failed: ${String(error)}`));
      });
      return hold(self, { flush: () => last });
    }),
    trace: fromCallback<EventObject, RecorderInput>(({ input, self }) => {
      const { config, cwd } = input;
      if (!config.servers.some((d) => d.trace)) return;
      const file = traceFile(cwd, config.settings.trace.file);
      const trace = createTraceLog(file, config.settings.trace, secrets, cwd);
      return hold(self, { trace, flush: () => trace.flush() });
    }),
    stats: fromCallback<EventObject, RecorderInput>(({ input, self }) => {
      const capture = input.config.settings.captureStats;
      if (!capture) return;
      const stats = createCallStats({ path: capture.path, flushDelayMs: capture.flushDelayMs });
      return hold(self, { stats, flush: () => stats.dispose() });
    }),
    traceOf: (ref) => (ref ? held.get(ref)?.trace : undefined),
    statsOf: (ref) => (ref ? held.get(ref)?.stats : undefined),
    async flush(refs) {
      await Promise.allSettled(refs.map((ref) => held.get(ref)?.flush()));
    },
  };
}
