// Before a sign-in: what the server's 401 asks for (scope, protected-resource metadata URL). Some
// servers let anyone initialize and want a token only from the first real request on, so when the
// initialize goes through, the probe asks for the tool list in that session too. A 2026-07-28 server
// refuses initialize itself: it is asked server/discover, then tools/list, in its own protocol.

import { extractWWWAuthenticateParams } from '@modelcontextprotocol/client';

export interface Challenge {
  scope?: string;
  resourceMetadataUrl?: URL;
}

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

const PROTOCOL_VERSION = '2025-06-18';
const MODERN_PROTOCOL_VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'pi-mcp-actors', version: '0.1.0' };

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
        clientInfo: CLIENT_INFO,
      },
    });
    if (refused(initialize)) return challengeOf(initialize);
    if (!initialize.ok) return await probeModern(serverUrl, fetchFn);
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

/** A 2026-07-28 server (no initialize): what it answers to server/discover, then to tools/list. */
async function probeModern(serverUrl: string, fetchFn: Fetch): Promise<Challenge> {
  for (const method of ['server/discover', 'tools/list']) {
    const response = await post(
      serverUrl,
      fetchFn,
      {
        jsonrpc: '2.0',
        id: method,
        method,
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
            'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': method },
    );
    if (refused(response)) return challengeOf(response);
    if (!response.ok) return {};
  }
  return {};
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
