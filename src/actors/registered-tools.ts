// What the host has been given: each registered tool as it was last registered. A tool whose
// description, schema or exposure changed (list_changed, reconnect, a live list that differs from the
// cache) is registered again under its name; one the catalog no longer has is withdrawn.
//
// Pi rebuilds its whole tool registry on every registration, so registering n tools costs it O(n²):
// above EVERY_TOOL_LIMIT catalog entries only the tools that are wanted (direct ones, those ToolSearch
// loaded) are registered, each when it is first wanted — loading k tools of a huge server costs O(k).
// A host whose scripts may call any tool (Pi's codemode) gets every tool (registersEveryTool).

/** Catalogs up to this size are registered whole: every tool reachable by name before any search. */
export const EVERY_TOOL_LIMIT = 100;

import type { CatalogEntry } from '../catalog/catalog.ts';

export interface RegistrationChanges {
  /** New tools and tools whose registration changed: register (again). */
  changed: CatalogEntry[];
  /** Registered before, gone from the catalog now: withdraw. */
  withdrawn: CatalogEntry[];
}

export class RegisteredTools {
  private readonly byName = new Map<string, { entry: CatalogEntry; key: string }>();

  /** `wanted`: which tools to register now; those registered before stay so (again when they change). */
  update(
    entries: readonly CatalogEntry[],
    wanted: (entry: CatalogEntry) => boolean = () => true,
  ): RegistrationChanges {
    const changed: CatalogEntry[] = [];
    const present = new Set<string>();
    for (const entry of entries) {
      present.add(entry.name);
      if (!this.byName.has(entry.name) && !wanted(entry)) continue;
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
