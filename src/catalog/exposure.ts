// Decides, per tool, whether it is direct (always active), deferred (found through ToolSearch) or
// hidden (never registered). Plain function over the resolved config.

import type { DirectToolsSpec, Exposure, ServerDefinition, ToolPrefix } from '../config/types.ts';
import { matchesAny, matchesGlob } from './glob.ts';
import { serverPrefix } from './naming.ts';

/**
 * Whether a tool exists at all for the model: includeTools / excludeTools, as globs over the original
 * name; excludeTools also takes the prefixed name (`<server>__<tool>`) users see in Pi.
 */
export function isToolIncluded(def: ServerDefinition, tool: string, prefix: ToolPrefix): boolean {
  if (def.includeTools && def.includeTools.length > 0 && !matchesAny(tool, def.includeTools)) return false;
  if (matchesAny(tool, def.excludeTools)) return false;
  return !def.excludeTools.includes(`${serverPrefix(def.name, prefix)}__${tool}`);
}

function configuredExposure(def: ServerDefinition, tool: string): Exposure {
  const exact = def.toolExposure.find((rule) => rule.pattern === tool);
  if (exact) return exact.exposure;
  const pattern = def.toolExposure.find((rule) => matchesGlob(tool, rule.pattern));
  return pattern ? pattern.exposure : def.exposure;
}

function envSaysDirect(spec: DirectToolsSpec, server: string, tool: string): boolean {
  if (spec.kind === 'all') return true;
  if (spec.kind === 'none') return false;
  return spec.servers.includes(server) || spec.tools.some((t) => t.server === server && t.tool === tool);
}

/**
 * Precedence: hidden stays hidden; MCP_DIRECT_TOOLS (when set) decides direct vs deferred; then
 * `directTools` (true / list); then `exposure` / `toolExposure`.
 */
export function resolveExposure(def: ServerDefinition, tool: string, env?: DirectToolsSpec): Exposure {
  const configured = configuredExposure(def, tool);
  if (configured === 'hidden') return 'hidden';
  if (env) return envSaysDirect(env, def.name, tool) ? 'direct' : 'deferred';
  if (def.directTools === true) return 'direct';
  if (Array.isArray(def.directTools) && def.directTools.includes(tool)) return 'direct';
  return configured;
}

/** Whether any tool of this server can be direct (so its tools must exist before the first request). */
export function mayHaveDirectTools(def: ServerDefinition, env: DirectToolsSpec | undefined): boolean {
  if (env) {
    return (
      env.kind === 'all' ||
      (env.kind === 'list' &&
        (env.servers.includes(def.name) || env.tools.some((t) => t.server === def.name)))
    );
  }
  return (
    def.directTools !== false ||
    def.exposure === 'direct' ||
    def.toolExposure.some((r) => r.exposure === 'direct')
  );
}
