// What the host has been given: each registered tool as it was last registered. A tool whose
// description, schema, annotations or exposure changed (list_changed, reconnect, a live list that
// differs from the cache) is registered again under its name; one the catalog no longer has is withdrawn.
// One registry per host (HostPort.registry): Pi's start path and the runtime both go through it, so
// a tool registered before the first model request is not registered again when the runtime starts.
//
// Pi rebuilds its whole tool registry on every registration, so registering n tools costs it O(n²):
// above EVERY_TOOL_LIMIT catalog entries only the tools that are wanted (direct ones, those ToolSearch
// loaded) are registered, each when it is first wanted — loading k tools of a huge server costs O(k).
// A host whose scripts may call any tool (Pi's codemode) gets every tool (registersEveryTool).

import type { CatalogEntry } from '../catalog/catalog.ts';

/** Catalogs up to this size are registered whole: every tool reachable by name before any search. */
export const EVERY_TOOL_LIMIT = 100;

export interface RegistrationChanges {
  /** New tools and tools whose registration changed: register (again). */
  changed: CatalogEntry[];
  /** Registered before, gone from the catalog now: withdraw. */
  withdrawn: CatalogEntry[];
}

interface Registration {
  entry: CatalogEntry;
  key: string;
  /** Withdrawn: the host keeps it (Pi cannot unregister) but unreachable. */
  withdrawn: boolean;
}

export class RegisteredTools {
  private readonly byName = new Map<string, Registration>();

  /** Whether the host holds a tool of ours by this name (a withdrawn one too). */
  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Notes `entry` as registered; true when the host must be told (new, changed, or withdrawn before). */
  add(entry: CatalogEntry): boolean {
    const key = registrationKey(entry);
    const before = this.byName.get(entry.name);
    if (before && !before.withdrawn && before.key === key) return false;
    this.byName.set(entry.name, { entry, key, withdrawn: false });
    return true;
  }

  /** `wanted`: which tools to register now; those registered before stay so (again when they change). */
  update(
    entries: readonly CatalogEntry[],
    wanted: (entry: CatalogEntry) => boolean = () => true,
  ): RegistrationChanges {
    const changed: CatalogEntry[] = [];
    const present = new Set<string>();
    for (const entry of entries) {
      present.add(entry.name);
      const before = this.byName.get(entry.name);
      if ((!before || before.withdrawn) && !wanted(entry)) continue;
      if (this.add(entry)) changed.push(entry);
    }
    const withdrawn: CatalogEntry[] = [];
    for (const registration of this.byName.values()) {
      if (present.has(registration.entry.name) || registration.withdrawn) continue;
      registration.withdrawn = true;
      withdrawn.push(registration.entry);
    }
    return { changed, withdrawn };
  }
}

/** What the host is told about a tool: registering it again is needed only when this changes. */
function registrationKey(entry: CatalogEntry): string {
  return JSON.stringify([
    entry.server,
    entry.tool,
    entry.kind,
    entry.uri,
    entry.uriTemplate,
    entry.exposure,
    entry.description,
    entry.inputSchema,
    entry.annotations,
  ]);
}
