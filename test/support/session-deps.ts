// The deps of the session use cases (src/session/search-tools.ts, call-tool.ts) over a real runtime:
// its session actor and its server actors; a test replaces what it controls (the clock of a search's
// wait, the approval dialog, stats) through `overrides`.

import { SimulatedClock, waitFor } from 'xstate';
import type { Runtime } from '../../src/actors/session-actor.ts';
import { unrefClock } from '../../src/actors/unref-clock.ts';
import { buildCatalog } from '../../src/catalog/catalog.ts';
import { serverTools } from '../../src/session/describe-session.ts';
import type { SessionDeps } from '../../src/session/session-deps.ts';
import { wordsFor } from '../../src/tools/surface-words.ts';

export function runtimeDeps(
  runtime: Runtime,
  tempDir: string,
  overrides: Partial<SessionDeps> = {},
): SessionDeps {
  const { actor } = runtime;
  return {
    snapshot: () => actor.getSnapshot(),
    send: (event) => actor.send(event),
    until: (done, signal) =>
      waitFor(actor, done, signal ? { signal } : {}).then(
        () => undefined,
        () => undefined,
      ),
    catalogOf: (context) =>
      buildCatalog(serverTools(context), { toolPrefix: context.config?.settings.toolPrefix ?? 'server' }),
    servers: () => runtime.servers(),
    removedTool: () => undefined,
    stats: () => undefined,
    askApproval: undefined,
    secrets: runtime.secrets,
    words: wordsFor('pi'),
    surface: undefined,
    clock: unrefClock,
    tempDir,
    startLoadedServers: true,
    ...overrides,
  };
}

/** A SimulatedClock that says when code first set a timer on it: a test moves time only once it waits. */
export function armedClock(): SimulatedClock & { armed: Promise<void> } {
  const clock = new SimulatedClock();
  let arm: () => void = () => {};
  const armed = new Promise<void>((resolve) => {
    arm = resolve;
  });
  const setTimeout = clock.setTimeout.bind(clock);
  clock.setTimeout = (fn, ms) => {
    arm();
    return setTimeout(fn, ms);
  };
  return Object.assign(clock, { armed });
}
