// What the session's use cases (ToolSearch, a call) take from the runtime: one object, built once by
// createRuntime, so each use case names its needs and a test can hand it a session of its own.

import type { SnapshotFrom } from 'xstate';
import type { Catalog } from '../catalog/catalog.ts';
import type { SessionContext, SessionEvent, sessionMachine } from '../machines/session.machine.ts';
import type { Clock } from '../ports/clock.ts';
import type { Surface, SurfaceWords } from '../ports/surface-words.ts';
import type { SecretValues } from '../redact/index.ts';
import type { AskApproval } from '../tools/approval.ts';
import type { CallStats } from '../tools/stats.ts';
import type { ServerActorRef } from './ensure-connected.ts';
import { generationGuard } from './generation.ts';

export type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;

export interface SessionDeps {
  /** The session actor's snapshot now. */
  snapshot(): SessionSnapshot;
  send(event: SessionEvent): void;
  /** Resolves once a snapshot satisfies `done` (at once when this one does), or when `signal` aborts. */
  until(done: (snapshot: SessionSnapshot) => boolean, signal?: AbortSignal): Promise<void>;
  /** The catalog of a session context (kept by the runtime: names stay stable within a session). */
  catalogOf(context: SessionContext): Catalog;
  /** The session's server actors, by server name. */
  servers(): Record<string, ServerActorRef>;
  /** The server a config edit removed this session, of a tool name it offered. */
  removedTool(name: string): { server: string; file: string } | undefined;
  /** The running stats recorder (none while the session is not open or stats are off). */
  stats(): CallStats | undefined;
  /** Asks the user whether an `approveTools` call may run; none: such calls fail closed. */
  askApproval: AskApproval | undefined;
  secrets: SecretValues;
  words: SurfaceWords;
  /** Where messages are read; none: Pi. */
  surface: Surface | undefined;
  clock: Clock;
  tempDir: string;
  /** Start the servers of the tools a search loaded, for the call the model makes next. */
  startLoadedServers: boolean;
}

/**
 * Resolves once the session has left `starting`, and a new session asked for while the last one was
 * open has started too (at once when nothing starts: the hot path).
 */
export function untilStarted(deps: Pick<SessionDeps, 'until'>, signal?: AbortSignal): Promise<void> {
  return deps.until((s) => !s.matches('starting') && s.context.restart === undefined, signal);
}

/**
 * Whether the session still runs the generation it ran when this was asked (none while it was not
 * running): false once it stops, for a shutdown or a new session, whose tools and told troubles are
 * not this work's to change.
 */
export function stillRunning(deps: Pick<SessionDeps, 'snapshot'>): () => boolean {
  return generationGuard(() => {
    const snapshot = deps.snapshot();
    return snapshot.matches({ open: 'running' }) ? snapshot.context.generation : undefined;
  });
}
