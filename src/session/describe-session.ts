// The session's catalog from config + cache, and ToolSearch's description built from it: all the
// first model request needs, so Pi's startup path uses it without loading the runtime.

import type { CacheStore } from '../catalog/cache.ts';
import { buildCatalog, type Catalog, type ServerTools } from '../catalog/catalog.ts';
import { mayHaveDirectTools } from '../catalog/exposure.ts';
import type { LoadedConfig, ServerDefinition } from '../config/types.ts';
import type { KnownCatalog, SessionContext } from '../machines/session.machine.ts';
import { lineBudget, serverLine } from '../tools/server-summary.ts';
import { buildToolSearchDescription } from '../tools/tool-search.ts';
import { declaredCapabilities } from './server-requests.ts';

/** Every configured server's known tools; session-disabled servers keep their names (and are filtered
 * out of the active set and of search), so enabling one again changes nothing for the model. */
export function serverTools(context: Pick<SessionContext, 'config' | 'catalogs'>): ServerTools[] {
  return (context.config?.servers ?? []).map((definition) => {
    const known = context.catalogs[definition.name];
    if (!known) return { definition };
    return {
      definition,
      tools: known.tools,
      resources: known.resources,
      ...(known.resourceTemplates ? { resourceTemplates: known.resourceTemplates } : {}),
      ...(known.serverInfo?.title ? { title: known.serverInfo.title } : {}),
      ...(known.instructions ? { instructions: known.instructions } : {}),
    };
  });
}

/** The session's catalog from config + cache, and ToolSearch's description built from it. */
export function describeSession(config: LoadedConfig, cached: Record<string, KnownCatalog>) {
  const catalog = buildCatalog(serverTools({ config, catalogs: cached }), {
    toolPrefix: config.settings.toolPrefix,
    ...(config.settings.directToolsEnv ? { directToolsEnv: config.settings.directToolsEnv } : {}),
  });
  const deferred = catalog.entries.filter((e) => e.exposure !== 'direct');
  const summaries = config.servers.map((d) => {
    const names = catalog.entries.filter((e) => e.server === d.name).map((e) => e.tool);
    const known = cached[d.name];
    const line = serverLine(d.name, {
      description: d.description,
      title: known?.serverInfo?.title,
      instructions: known?.instructions,
      toolNames: names,
      budget: lineBudget(config.servers.length),
    });
    return {
      name: d.name,
      ...(line ? { line } : {}),
      ...(cached[d.name] ? { toolCount: names.length } : {}),
    };
  });
  return { catalog, description: buildToolSearchDescription(deferred, summaries) };
}

export function sessionDescription(config: LoadedConfig, cached: Record<string, KnownCatalog>): string {
  return describeSession(config, cached).description;
}

/** A session as read at its start: config, valid cache entries, the catalog and ToolSearch's description. */
export interface SessionStartup {
  config: LoadedConfig;
  cached: Record<string, KnownCatalog>;
  catalog: Catalog;
  description: string;
}

/** Reads the metadata cache once for this config (its problems join the config's diagnostics); only
 * entries listed with the capabilities this host declares (`hostAnswers`: see declaredCapabilities). */
export function readSession(
  config: LoadedConfig,
  cache: CacheStore | undefined,
  hostAnswers = true,
): SessionStartup {
  const cached: Record<string, KnownCatalog> = {};
  if (cache) {
    config.diagnostics.push(...cache.read().diagnostics);
    for (const def of config.servers) {
      const declared = declaredCapabilities(def, config.settings, hostAnswers);
      const entry = cache.validEntry(def, undefined, declared);
      if (entry) cached[def.name] = entry;
    }
  }
  return { config, cached, ...describeSession(config, cached) };
}

/**
 * Servers that may have direct tools the cache does not know: the first model request needs those tools,
 * so the session's start connects these servers and waits for them (bounded by their startup timeout).
 */
export function awaitsDirectTools(config: LoadedConfig, known: Record<string, unknown>): ServerDefinition[] {
  return config.servers.filter(
    (d) => !known[d.name] && mayHaveDirectTools(d, config.settings.directToolsEnv),
  );
}
