// The events of one Connection, with a small buffer: events that happen between connect and the
// owner's first onEvent subscription (a list_changed right after initialize) are not lost.

import type { ConnectionEvent } from '../../ports/connection.ts';

export class EventHub {
  private readonly listeners = new Set<(event: ConnectionEvent) => void>();
  private pending: ConnectionEvent[] = [];

  subscribe(listener: (event: ConnectionEvent) => void): () => void {
    this.listeners.add(listener);
    if (this.pending.length > 0) {
      const pending = this.pending;
      this.pending = [];
      for (const event of pending) listener(event);
    }
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** `buffer: false` for stderr lines, which the tail keeps anyway. */
  emit(event: ConnectionEvent, buffer = true): void {
    if (this.listeners.size === 0) {
      if (buffer && this.pending.length < 100) this.pending.push(event);
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's bug must not break the connection.
      }
    }
  }
}
