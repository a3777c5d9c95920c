// The MCP tools active for the next model request: direct tools, and those ToolSearch loaded or the
// user pinned, of servers not disabled this session.

import type { Catalog, CatalogEntry } from '../catalog/catalog.ts';
import type { SessionContext } from '../machines/session.machine.ts';

export function activeNames(context: SessionContext, catalog: Catalog): string[] {
  const on = (e: CatalogEntry | undefined) => e !== undefined && !context.disabled.includes(e.server);
  const direct = catalog.entries.filter((e) => e.exposure === 'direct' && on(e)).map((e) => e.name);
  const activated = context.activated.filter((n) => on(catalog.byName.get(n)));
  return [...new Set([...direct, ...activated])];
}
