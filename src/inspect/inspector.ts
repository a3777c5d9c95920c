// Live inspection of our actors with @statelyai/inspect. Off unless a target is given; every event is
// redacted twice: before the Stately inspector serialises it (so live connections and secrets are never
// even stringified) and again on the way out (definition, errors, spawned-actor input). Events of actors
// that run elsewhere (the shared host's, already converted and redacted there) are relayed to the same
// sink, through the outgoing redaction of this runtime.

import { createInspector } from '@statelyai/inspect';
import type { AnyEventObject, InspectionEvent } from 'xstate';
import { createRedactor, type SecretValues } from '../redact/index.ts';
import { redactEventObject, redactInspectionEvent, redactSnapshot } from './redact-event.ts';
import { createJsonlSink, createWebSocketSink, type Sink, type SinkErrorReporter } from './sinks.ts';
import type { InspectTarget } from './target.ts';

export { createDeferredInspection, type DeferredInspection, type InspectionRelay } from './deferred.ts';
export {
  INSPECT_ENV,
  INSPECT_FLAG,
  type InspectSetting,
  type InspectTarget,
  inspectTargetFrom,
  isLoopbackHost,
  type ParsedInspectTarget,
  parseInspectTarget,
} from './target.ts';

export interface InspectionOptions {
  /** The known secrets of the runtime inspected. */
  known: SecretValues;
  /** Secrets beyond `known`; read for every event. */
  secrets?: () => readonly string[];
  /** Told once per failure (file not writable, inspector not reachable); never a secret. */
  onError?: (message: string) => void;
}

export interface Inspection {
  /** Pass as `createActor(machine, { inspect })` on the root actor. */
  inspect: (event: InspectionEvent) => void;
  /** Writes an event converted and redacted elsewhere (the shared host's actors), redacted again here. */
  relay(event: object): void;
  /** Delivers what is already queued, then closes the file or socket. Never rejects. */
  dispose(): Promise<void>;
}

export function createInspection(target: InspectTarget, options: InspectionOptions): Inspection {
  return createInspectionWith(
    (report) =>
      target.kind === 'jsonl'
        ? createJsonlSink(target.file, report)
        : createWebSocketSink(target.url, report),
    options,
  );
}

/** The same inspection into a sink of the caller's (the shared host sends to its sessions this way). */
export function createInspectionWith(
  makeSink: (report: SinkErrorReporter) => Sink,
  options: InspectionOptions,
): Inspection {
  const redactor = createRedactor(options.known, options.secrets);
  const report = (message: string) => {
    try {
      options.onError?.(redactor.text(message));
    } catch {
      // A reporter that throws must not break the actor system.
    }
  };
  const sink = makeSink(report);

  // The systemId is assigned after XState announces the actor, so remember it from the actor's options.
  const systemIds = new Map<string, string>();

  const inspector = createInspector(
    {
      start: () => sink.start(),
      stop: () => sink.stop(),
      send(event) {
        try {
          const systemId = event.type === '@xstate.actor' ? takeSystemId(event.sessionId) : undefined;
          const out = redactInspectionEvent(systemId ? { ...event, systemId } : event, redactor);
          sink.send(out);
        } catch {
          // Inspection is best-effort; a bad event is dropped, never thrown into the actor system.
        }
      },
    },
    {
      sanitizeContext: (context) => redactor.value(context) as Record<string, unknown>,
      sanitizeEvent: (event) => redactEventObject(event, redactor) as AnyEventObject,
    },
  );

  const takeSystemId = (sessionId: string): string | undefined => {
    const systemId = systemIds.get(sessionId);
    systemIds.delete(sessionId);
    return systemId;
  };

  let disposed = false;
  inspector.start();

  const inspect = (event: InspectionEvent) => {
    if (disposed) return;
    try {
      switch (event.type) {
        case '@xstate.actor': {
          const actor = event.actorRef as {
            sessionId?: string;
            systemId?: string;
            options?: { systemId?: unknown };
          };
          const systemId = actor.options?.systemId ?? actor.systemId;
          if (typeof systemId === 'string' && actor.sessionId) systemIds.set(actor.sessionId, systemId);
          inspector.inspect.next?.(event);
          return;
        }
        case '@xstate.event':
          inspector.inspect.next?.({
            ...event,
            event: redactEventObject(event.event, redactor) as AnyEventObject,
          });
          return;
        case '@xstate.snapshot':
          inspector.inspect.next?.({
            ...event,
            event: redactEventObject(event.event, redactor) as AnyEventObject,
            snapshot: redactSnapshot(event.snapshot, redactor) as typeof event.snapshot,
          });
          return;
        default:
          // Microsteps, actions and transitions are dropped by the Stately inspector anyway.
          return;
      }
    } catch {
      // Never throw into XState.
    }
  };

  return {
    inspect,
    relay(event) {
      if (disposed) return;
      try {
        sink.send(redactInspectionEvent(event, redactor));
      } catch {
        // Best-effort, as above.
      }
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      // The Stately inspector converts each event on a setTimeout(0); let the queued ones through.
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      inspector.stop();
      await sink.close();
      systemIds.clear();
    },
  };
}
