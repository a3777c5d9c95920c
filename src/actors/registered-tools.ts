// What the host has been given: each registered tool as it was last registered. A tool whose
// description, schema or exposure changed (list_changed, reconnect, a live list that differs from the
// cache) is registered again under its name; one the catalog no longer has is withdrawn.

import type { CatalogEntry } from '../catalog/catalog.ts';

export interface RegistrationChanges {
  /** New tools and tools whose registration changed: register (again). */
  changed: CatalogEntry[];
  /** Registered before, gone from the catalog now: withdraw. */
  withdrawn: CatalogEntry[];
}

export class RegisteredTools {
  private readonly byName = new Map<string, { entry: CatalogEntry; key: string }>();

  update(entries: readonly CatalogEntry[]): RegistrationChanges {
    const changed: CatalogEntry[] = [];
    const present = new Set<string>();
    for (const entry of entries) {
      present.add(entry.name);
      const key = registrationKey(entry);
      if (this.byName.get(entry.name)?.key === key) continue;
      this.byName.set(entry.name, { entry, key });
      changed.push(entry);
    }
    const withdrawn: CatalogEntry[] = [];
    for (const [name, { entry }] of this.byName) {
      if (present.has(name)) continue;
      this.byName.delete(name);
      withdrawn.push(entry);
    }
    return { changed, withdrawn };
  }
}

function registrationKey(entry: CatalogEntry): string {
  return JSON.stringify([entry.description, entry.inputSchema, entry.exposure, entry.kind, entry.uri]);
}
