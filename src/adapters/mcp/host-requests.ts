// What the server may ask of us: the client capabilities we declare and the SDK handlers that pass
// elicitation, sampling, roots and log messages to the host. A capability is declared only when the
// host answers it (server-everything, for one, adds tools per declared capability).

import { type Client, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { ServerDefinition } from '../../config/types.ts';
import {
  type ElicitRequest,
  HostRefusal,
  type HostRequests,
  type JsonSchema,
  type LogLevel,
  type SamplingContent,
  type SamplingRequest,
} from '../../ports/mcp.ts';

export function clientCapabilities(host: HostRequests | undefined): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {};
  // Roots never change during a connection: a new Pi session (another cwd) reconnects every server.
  if (host?.roots) capabilities.roots = { listChanged: false };
  if (host?.elicit) capabilities.elicitation = { form: { applyDefaults: true }, url: {} };
  if (host?.sample) capabilities.sampling = {};
  return capabilities;
}

export function installHostRequests(client: Client, host: HostRequests | undefined): void {
  const { roots, elicit, sample, log } = host ?? {};
  if (roots) client.setRequestHandler('roots/list', async () => ({ roots: roots() }));
  if (elicit) {
    client.setRequestHandler(
      'elicitation/create',
      async (request, ctx) =>
        // Form content is checked against requestedSchema by the SDK.
        (await refusalsAsErrors(() => elicit(elicitRequestOf(request.params), ctx.mcpReq.signal))) as never,
    );
  }
  if (sample) {
    client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
      const answer = await refusalsAsErrors(() =>
        sample(samplingRequestOf(request.params as WireSamplingParams), ctx.mcpReq.signal),
      );
      return { ...answer } as Record<string, unknown> as never;
    });
  }
  if (log) {
    client.setNotificationHandler('notifications/message', async (notification) => {
      const { level, logger, data } = notification.params;
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      log(level as LogLevel, logger ? `${logger}: ${text}` : text);
    });
  }
}

/**
 * Answers one request the server made inside a 2026-07-28 task (`inputRequests` of `tasks/get`), as
 * the handlers above answer the same request on its own. Undefined: the host cannot answer it.
 */
export async function answerInputRequest(
  host: HostRequests | undefined,
  request: { method?: unknown; params?: unknown },
  signal: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const params: unknown = request.params ?? {};
  if (request.method === 'elicitation/create' && host?.elicit) {
    return { ...(await host.elicit(elicitRequestOf(params as WireElicitParams), signal)) };
  }
  if (request.method === 'sampling/createMessage' && host?.sample) {
    return { ...(await host.sample(samplingRequestOf(params as WireSamplingParams), signal)) };
  }
  if (request.method === 'roots/list' && host?.roots) return { roots: host.roots() };
  return undefined;
}

type WireElicitParams =
  | { mode: 'url'; message: string; url: string; elicitationId: string }
  | { mode?: 'form'; message: string; requestedSchema: unknown };

function elicitRequestOf(params: WireElicitParams): ElicitRequest {
  return params.mode === 'url'
    ? { mode: 'url', message: params.message, url: params.url, elicitationId: params.elicitationId }
    : { mode: 'form', message: params.message, requestedSchema: params.requestedSchema as JsonSchema };
}

interface WireSamplingParams {
  messages: Array<{ role: 'user' | 'assistant'; content: unknown }>;
  maxTokens: number;
  modelPreferences?: { hints?: Array<{ name?: string }> };
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
}

function samplingRequestOf(p: WireSamplingParams): SamplingRequest {
  return {
    messages: p.messages.map((m) => ({
      role: m.role,
      content: m.content as SamplingContent | SamplingContent[],
    })),
    maxTokens: p.maxTokens,
    modelHints: (p.modelPreferences?.hints ?? []).flatMap((h) => (h.name ? [h.name] : [])),
    ...(p.systemPrompt === undefined ? {} : { systemPrompt: p.systemPrompt }),
    ...(p.temperature === undefined ? {} : { temperature: p.temperature }),
    ...(p.stopSequences === undefined ? {} : { stopSequences: p.stopSequences }),
  };
}

/** `logging/setLevel` after initialize, when the server logs: `debug: true` asks for everything. */
export async function applyLogLevel(
  client: Client,
  def: ServerDefinition,
  signal: AbortSignal,
): Promise<void> {
  if (!client.getServerCapabilities()?.logging) return;
  await client.setLoggingLevel(def.debug ? 'debug' : 'info', { signal }).catch(() => {});
}

async function refusalsAsErrors<T>(answer: () => Promise<T>): Promise<T> {
  try {
    return await answer();
  } catch (error) {
    if (error instanceof HostRefusal) {
      const refusal = new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message);
      // The JSON-RPC error carries the reason alone: the asking server's SDK adds its own "MCP error -32600: ".
      refusal.message = error.message;
      throw refusal;
    }
    throw error;
  }
}
