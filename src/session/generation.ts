// Each session start is a new generation (Pi's /new, /reload, /resume). Work begun in one (a search
// waiting for servers, a session start) asks after its awaits whether it is still in it, with this
// one helper, instead of comparing numbers by hand. Events that carry a generation are dropped by the
// session machine itself when stale; this is for the runtime code between awaits.

/** Reads the generation now; the guard answers whether it is still the one read when it was made. */
export function generationGuard(readGeneration: () => number | undefined): () => boolean {
  const generation = readGeneration();
  return () => readGeneration() === generation;
}
