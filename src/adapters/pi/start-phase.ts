// Pi's start as one small state: where the current Pi session is on its way from Pi's session_start
// to a started session runtime, and what the start hands to the runtime's first load. `next` is pure;
// the bridge runs the effects of the phase it gets (the wake timer, the runtime's start). Not a machine:
// this runs before Pi's first model request, which must not pay for loading XState (DESIGN rule 8).
//
//   closed ──session_start──▶ preparing ──declared──▶ declared ──start──▶ started
//                                  └──────────────start (a tool call, /mcp, direct tools)──▶ started
//   started ──restart (servers changed, consent given)──▶ declared;  any ──session_shutdown──▶ closed

import type { Runtime } from '../../actors/session-actor.ts';
import type { LoadedConfig } from '../../config/types.ts';
import type { StartRequest } from '../../machines/session.machine.ts';
import type { SessionStartup } from '../../session/describe-session.ts';

/** Why the runtime starts by itself once the first request is declared. */
export type WakeReason = 'no-request' | 'request-sent';

/** How long after the reason the runtime starts (a tool call or /mcp starts it at once). */
export const WAKE_AFTER_MS: Record<WakeReason, number> = {
  /**
   * After the first model request is handed to the provider: long enough for it to be on the wire even
   * on a loaded machine (loading the runtime blocks the event loop for tens of ms), short against a
   * model's turn. A one-shot answer exits without it.
   */
  'request-sent': 250,
  /** A session that sends no request soon (an interactive one waiting for its prompt) starts anyway. */
  'no-request': 1_000,
};

/** A wake the bridge arms a timer for; a new object each time it is (re)armed, so identity says when. */
export interface Wake {
  reason: WakeReason;
}

/** Config texts a start read (path → text, undefined: absent). */
export type ConfigTexts = Map<string, string | undefined>;

/** What the current session's start knows. */
export interface SessionFacts {
  request: StartRequest;
  /** How the first request was prepared: from the start record, or by loading config and cache. */
  from: 'record' | 'load';
  /** The config as last loaded for this session. */
  config?: LoadedConfig;
  /** Config texts the start record read: the session's first full load takes them instead of reading. */
  texts?: ConfigTexts;
  /** The start record says its servers run in the shared host (a loaded config says so itself). */
  sharedHost?: boolean;
  /** Config and cache read at session_start: the runtime's start for the same request takes them. */
  startup?: SessionStartup;
  /** Saves this session's start record once its first request is on its way. */
  saveRecord?: () => Promise<void>;
}

export type StartPhase =
  /** No Pi session: before the first session_start, after session_shutdown. */
  | { kind: 'closed'; from?: SessionFacts['from'] }
  /** session_start is preparing the first model request. */
  | ({ kind: 'preparing' } & SessionFacts)
  /** The first request's tools are registered; the runtime waits for the request, a tool call or /mcp. */
  | ({ kind: 'declared'; wake: Wake | undefined } & SessionFacts)
  /** The runtime was started with this session (its start may still be under way). */
  | ({ kind: 'started'; runtime: Promise<Runtime> } & SessionFacts);

export type StartEvent =
  | {
      type: 'session_start';
      request: StartRequest;
      from: SessionFacts['from'];
      texts?: ConfigTexts;
      sharedHost?: boolean;
    }
  /** A full config load for this session ran (it took the record's texts). */
  | { type: 'loaded'; config: LoadedConfig }
  | { type: 'read'; startup: SessionStartup }
  /** The runtime's start took the startup read at session_start. */
  | { type: 'startup_taken' }
  /** The first request's tools are registered. */
  | { type: 'declared'; saveRecord?: () => Promise<void> }
  /** Pi prepares a model request: nothing starts while it does. */
  | { type: 'agent_start' }
  /** The request was handed to the provider (the bridge took `saveRecord`). */
  | { type: 'provider_request' }
  | { type: 'start'; runtime: Promise<Runtime> }
  /** The session starts over with the same request (Pi's MCP servers changed, project servers allowed). */
  | { type: 'restart' }
  | { type: 'session_shutdown' };

export const closed: StartPhase = { kind: 'closed' };

export function next(phase: StartPhase, event: StartEvent): StartPhase {
  if (event.type === 'session_start') {
    const { request, from, texts, sharedHost } = event;
    return {
      kind: 'preparing',
      request,
      from,
      ...(texts ? { texts } : {}),
      ...(sharedHost ? { sharedHost } : {}),
    };
  }
  if (phase.kind === 'closed') return phase;
  const facts = factsOf(phase);
  const again = (changed: SessionFacts) => withFacts(phase, changed);
  switch (event.type) {
    case 'session_shutdown':
      return { kind: 'closed', from: phase.from };
    case 'loaded': {
      const { texts: _taken, ...rest } = facts;
      return again({ ...rest, config: event.config });
    }
    case 'read':
      return again({ ...facts, startup: event.startup });
    case 'startup_taken': {
      const { startup: _taken, ...rest } = facts;
      return again(rest);
    }
    case 'declared': {
      const declared = event.saveRecord ? { ...facts, saveRecord: event.saveRecord } : facts;
      if (phase.kind === 'started') return again(declared);
      return { ...declared, kind: 'declared', wake: { reason: 'no-request' } };
    }
    case 'agent_start':
      return phase.kind === 'declared' && phase.wake ? { ...phase, wake: undefined } : phase;
    case 'provider_request': {
      const { saveRecord: _taken, ...rest } = facts;
      if (phase.kind === 'declared') return { ...rest, kind: 'declared', wake: { reason: 'request-sent' } };
      return again(rest);
    }
    case 'start':
      return phase.kind === 'started' ? phase : { ...facts, kind: 'started', runtime: event.runtime };
    case 'restart': {
      const { startup: _dropped, ...rest } = facts;
      return { ...rest, kind: 'declared', wake: undefined };
    }
  }
}

/** The wake timer the phase wants armed, if any. */
export function wakeOf(phase: StartPhase): Wake | undefined {
  return phase.kind === 'declared' ? phase.wake : undefined;
}

/** Whether `request` is still the current session's. */
export function isCurrent(phase: StartPhase, request: StartRequest): boolean {
  return phase.kind !== 'closed' && phase.request === request;
}

type SessionPhase = Exclude<StartPhase, { kind: 'closed' }>;

function factsOf(phase: SessionPhase): SessionFacts {
  switch (phase.kind) {
    case 'preparing': {
      const { kind: _kind, ...facts } = phase;
      return facts;
    }
    case 'declared': {
      const { kind: _kind, wake: _wake, ...facts } = phase;
      return facts;
    }
    case 'started': {
      const { kind: _kind, runtime: _runtime, ...facts } = phase;
      return facts;
    }
  }
}

/** The same phase with other facts. */
function withFacts(phase: SessionPhase, facts: SessionFacts): SessionPhase {
  switch (phase.kind) {
    case 'preparing':
      return { ...facts, kind: 'preparing' };
    case 'declared':
      return { ...facts, kind: 'declared', wake: phase.wake };
    case 'started':
      return { ...facts, kind: 'started', runtime: phase.runtime };
  }
}
