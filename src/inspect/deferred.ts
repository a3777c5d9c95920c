// An `inspect` callback to hand to the root actor before we know whether inspection is on. Pi's flags
// are only readable from session_start, but the root actor is created earlier: events until then are
// held (bounded), then handed to the inspection, or dropped when inspection turns out to be off.
// It is also the session's relay for the shared host's actors (InspectionRelay): on while the
// inspection is.

import type { InspectionEvent } from 'xstate';

const HELD_LIMIT = 1000;

/** What the held events go to (an Inspection of ./inspector.ts). */
interface InspectionReceiver {
  inspect: (event: InspectionEvent) => void;
  relay(event: object): void;
  dispose(): Promise<void>;
}

/** Where the inspection events of the shared host's actors go in a session: its own inspection. */
export interface InspectionRelay {
  /** Whether the session inspects now (asked again later: it stops at shutdown). */
  on(): boolean;
  /** An event converted and redacted by the host; redacted again and written like the session's own. */
  relay(event: object): void;
}

export interface DeferredInspection extends InspectionRelay {
  /** Pass as `createActor(root, { inspect })`. */
  inspect: (event: InspectionEvent) => void;
  /** The first call decides: an Inspection receives the held events and all later ones; undefined drops them. */
  attach(inspection: InspectionReceiver | undefined): void;
  dispose(): Promise<void>;
}

export function createDeferredInspection(): DeferredInspection {
  let held: InspectionEvent[] | undefined = [];
  let target: InspectionReceiver | undefined;
  let decided = false;

  return {
    inspect(event) {
      if (target) return target.inspect(event);
      if (!held) return;
      held.push(event);
      if (held.length > HELD_LIMIT) held.shift();
    },
    on: () => target !== undefined,
    relay(event) {
      target?.relay(event);
    },
    attach(inspection) {
      if (decided) return;
      decided = true;
      const pending = held ?? [];
      held = undefined;
      target = inspection;
      if (target) for (const event of pending) target.inspect(event);
    },
    async dispose() {
      held = undefined;
      decided = true;
      const current = target;
      target = undefined;
      await current?.dispose();
    },
  };
}
