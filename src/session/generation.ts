// Each session start is a new generation (Pi's /new, /reload, /resume). Work begun in one (a search
// waiting for servers, a call, a session start) asks after each await whether it is still that one,
// here, instead of comparing numbers by hand. Events that carry a generation are dropped by the
// session machine itself when stale; this is for the runtime code between awaits.

export interface GenerationGuard {
  /** The generation the work began in. */
  readonly generation: number;
  /** Whether the session is still in that generation. */
  stillCurrent(): boolean;
}

export function generationGuard(readGeneration: () => number): GenerationGuard {
  const generation = readGeneration();
  return { generation, stillCurrent: () => readGeneration() === generation };
}
