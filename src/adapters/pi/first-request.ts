// What Pi's first model request declares: ToolSearch and the direct tools, and the narrowed active set,
// from config + cache, through the same redaction as the runtime's registrations (which then find them
// done).

import type { SessionStartup } from '../../session/describe-session.ts';
import type { HostPort } from '../../session/host-port.ts';
import type { FullStart } from './full-start-loader.ts';
import { codemodeReachesTools } from './tool-model.ts';

/** Registers what the first request needs; `activeTools`: Pi's active tools now. */
export function declareFirstRequest(
  { config, catalog, description }: SessionStartup,
  { redactingHost, reportConfigDiagnostics, logger, registry, secrets }: FullStart,
  host: HostPort,
  activeTools: string[],
): void {
  const outbound = redactingHost(host, secrets);
  reportConfigDiagnostics(config, logger, outbound.notify);
  outbound.registerToolSearch(description);
  // Pi rebuilds its whole tool registry on every registration, so only what the first request needs is
  // registered now: the direct tools, and every tool when codemode scripts can call them. The runtime
  // registers the deferred rest once the request is on its way (or at the first tool call).
  const everyTool = codemodeReachesTools(config.servers, activeTools);
  for (const entry of catalog.entries)
    if ((everyTool || entry.exposure === 'direct') && registry.add(entry)) outbound.registerTool(entry);
  const direct = catalog.entries.filter((entry) => entry.exposure === 'direct');
  outbound.setActiveMcpTools(direct.map((entry) => entry.name));
}

/**
 * Whether this start, which had nothing to connect, can be remembered: nothing but ToolSearch was
 * registered and nothing was said (a start that registered direct tools, the gateway or codemode's
 * tools, or told the user something, runs in full every time).
 */
export function startNeedsOnlyToolSearch(
  { config, catalog }: SessionStartup,
  activeTools: string[],
): boolean {
  return (
    !config.settings.proxyTool &&
    config.diagnostics.every((d) => d.level === 'info') &&
    catalog.entries.every((entry) => entry.exposure !== 'direct') &&
    !codemodeReachesTools(config.servers, activeTools)
  );
}
