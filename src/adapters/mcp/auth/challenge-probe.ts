// Before a sign-in: what the server's 401 asks for (scope, protected-resource metadata URL). Some
// servers let anyone initialize and want a token only from the first real request on, so when the
// initialize goes through, the probe asks for the tool list in that session too.

import { extractWWWAuthenticateParams } from '@modelcontextprotocol/client';

export interface Challenge {
  scope?: string;
  resourceMetadataUrl?: URL;
}

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

const PROTOCOL_VERSION = '2025-06-18';

/** Unauthenticated requests until one is refused; {} when none is (or the server cannot be reached). */
export async function probeChallenge(serverUrl: string, fetchFn: Fetch): Promise<Challenge> {
  try {
    const initialize = await post(serverUrl, fetchFn, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'pi-mcp-actors', version: '0.1.0' },
      },
    });
    if (refused(initialize)) return challengeOf(initialize);
    if (!initialize.ok) return {};
    const session = initialize.headers.get('mcp-session-id');
    const headers: Record<string, string> = {
      'mcp-protocol-version': PROTOCOL_VERSION,
      ...(session ? { 'mcp-session-id': session } : {}),
    };
    const list = await post(serverUrl, fetchFn, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
    if (session) {
      void fetchFn(serverUrl, { method: 'DELETE', headers, signal: AbortSignal.timeout(5_000) })
        .then((r) => r.body?.cancel())
        .catch(() => {});
    }
    return refused(list) ? challengeOf(list) : {};
  } catch {
    return {};
  }
}

async function post(
  serverUrl: string,
  fetchFn: Fetch,
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  const response = await fetchFn(serverUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel().catch(() => {});
  return response;
}

function refused(response: Response): boolean {
  return response.status === 401 || response.status === 403;
}

function challengeOf(response: Response): Challenge {
  const params = extractWWWAuthenticateParams(response);
  return {
    ...(params.scope ? { scope: params.scope } : {}),
    ...(params.resourceMetadataUrl ? { resourceMetadataUrl: params.resourceMetadataUrl } : {}),
  };
}
