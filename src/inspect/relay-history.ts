// What the local inspector remembers, so a browser that opens the page late still sees every server:
// each actor's registration, its latest snapshot, and the most recent events. Bounded in all three.

export interface InspectionMessage {
  type: string;
  sessionId?: unknown;
  systemId?: unknown;
  parentId?: unknown;
  snapshot?: { status?: unknown } | null;
}

const RECENT_LIMIT = 1000;
const ACTOR_LIMIT = 2000;

interface KnownActor {
  registration: string;
  /** Roots and actors with a systemId (servers, the supervisor) keep their card after they stop. */
  keep: boolean;
  snapshot?: string;
}

export class RelayHistory {
  private readonly actors = new Map<string, KnownActor>();
  private readonly recent: string[] = [];

  /** Records one relayed message: its parsed form and the exact text that was relayed. */
  record(message: InspectionMessage, text: string): void {
    this.recent.push(text);
    if (this.recent.length > RECENT_LIMIT) this.recent.shift();
    const sessionId = typeof message.sessionId === 'string' ? message.sessionId : undefined;
    if (!sessionId) return;
    if (message.type === '@xstate.actor') {
      const keep = typeof message.systemId === 'string' || typeof message.parentId !== 'string';
      this.actors.set(sessionId, { registration: text, keep });
      if (this.actors.size > ACTOR_LIMIT) this.actors.delete(this.actors.keys().next().value as string);
      return;
    }
    const actor = this.actors.get(sessionId);
    if (message.type !== '@xstate.snapshot' || !actor) return;
    const status = message.snapshot?.status;
    // Finished helpers (connect attempts, refreshes, watchers) need no card.
    if (status !== undefined && status !== 'active' && !actor.keep) this.actors.delete(sessionId);
    else actor.snapshot = text;
  }

  /** Everything a new browser needs, oldest first, without duplicates. */
  replay(): string[] {
    const inRecent = new Set(this.recent);
    const older: string[] = [];
    for (const actor of this.actors.values()) {
      if (!inRecent.has(actor.registration)) older.push(actor.registration);
    }
    for (const actor of this.actors.values()) {
      if (actor.snapshot !== undefined && !inRecent.has(actor.snapshot)) older.push(actor.snapshot);
    }
    return [...older, ...this.recent];
  }
}
