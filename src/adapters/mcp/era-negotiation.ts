// Which protocol era a connect speaks (`protocolVersion`): `legacy` is the 2025 `initialize`
// handshake; `2026-07-28` that revision only; `auto` uses the remembered answer of this server entry
// (./protocol-eras.ts) or asks the server (`server/discover`), and falls back to the 2025 handshake
// when the question itself fails, so `auto` never leaves a server unusable that `legacy` could use.

import type { Client, PriorDiscovery, VersionNegotiationOptions } from '@modelcontextprotocol/client';
import type { ServerDefinition } from '../../config/types.ts';
import { ConnectError } from '../../ports/mcp.ts';
import type { ProtocolEraStore } from './protocol-eras.ts';

export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** stdio: a server silent this long after `server/discover` is taken for a legacy one (then `initialize`). */
const STDIO_PROBE_TIMEOUT_MS = 5_000;

/** How one connect attempt talks: the Client's negotiation, and a remembered answer that skips the probe. */
export interface EraPlan {
  negotiation?: VersionNegotiationOptions;
  prior?: PriorDiscovery;
}

type Kind = 'stdio' | 'socket' | 'streamable-http' | 'sse';

export async function connectInEra<T extends { client: Client }>(
  def: ServerDefinition,
  kind: Kind,
  eras: ProtocolEraStore,
  attempt: (plan: EraPlan) => Promise<T>,
): Promise<T> {
  const mode = def.protocolVersion ?? 'auto';
  if (kind === 'sse') {
    // The legacy SSE transport speaks only the 2025 protocol: `auto` remembers that.
    const session = await attempt({});
    if (mode === 'auto' && eras.get(def) === undefined)
      await eras.set(def, { era: 'legacy', at: Date.now() });
    return session;
  }
  if (mode === 'legacy') return attempt({});
  if (mode !== 'auto') return attempt({ negotiation: { mode: { pin: mode } } });
  const probe = kind === 'stdio' ? { timeoutMs: Math.min(STDIO_PROBE_TIMEOUT_MS, def.startupTimeoutMs) } : {};
  const auto: VersionNegotiationOptions = { mode: 'auto', probe };
  const known = eras.get(def);
  if (known?.era === 'legacy') return attempt({ negotiation: auto, prior: { kind: 'legacy' } });
  if (known?.era === 'modern') {
    try {
      return await attempt({
        negotiation: auto,
        prior: { kind: 'modern', discover: known.discover as never },
      });
    } catch (error) {
      if (!worthAnotherTry(error)) throw error;
      // The server changed since it answered: ask again.
      await eras.forget(def);
    }
  }
  let session: T;
  try {
    session = await attempt({ negotiation: auto });
  } catch (error) {
    if (!worthAnotherTry(error)) throw error;
    // Some servers exit or break on any request before `initialize` (rmcp-based ones exit).
    session = await attempt({ negotiation: auto, prior: { kind: 'legacy' } });
    await eras.set(def, { era: 'legacy', at: Date.now() });
    return session;
  }
  await remember(def, session.client, eras);
  return session;
}

async function remember(def: ServerDefinition, client: Client, eras: ProtocolEraStore): Promise<void> {
  const era = client.getProtocolEra();
  const discover = client.getDiscoverResult();
  if (era === 'modern' && discover) {
    await eras.set(def, { era: 'modern', discover: discover as Record<string, unknown>, at: Date.now() });
  } else if (era === 'legacy') {
    await eras.set(def, { era: 'legacy', at: Date.now() });
  }
}

/**
 * A failure the other era might not have: the process died, the answer was not what we expected, or
 * an HTTP server failed (5xx) on a request it did not know (an outage fails the 2025 handshake too).
 */
function worthAnotherTry(error: unknown): boolean {
  if (!(error instanceof ConnectError)) return false;
  if (error.kind === 'http') return (error.status ?? 0) >= 500;
  return error.kind === 'exited' || error.kind === 'protocol';
}
