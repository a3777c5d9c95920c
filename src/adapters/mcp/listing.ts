// Listing a server's catalog: tools and resources, every page.

import type { Client } from '@modelcontextprotocol/client';
import type { ServerDefinition } from '../../config/types.ts';
import { stringFields } from '../../plain-object.ts';
import type {
  PromptDescriptor,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
  ServerCatalog,
  ToolDescriptor,
} from '../../ports/mcp.ts';
import { isMethodNotFound } from './errors.ts';
import type { Session } from './session.ts';
import { headerMarkProblem } from './x-mcp-header.ts';

/** A server that keeps answering with a cursor is cut off here rather than looping forever. */
const MAX_PAGES = 1_000;

/**
 * Lists everything the server offers. `warn` hears about optional lists (resources, templates, prompts)
 * that failed: the server still connects, without them.
 */
export async function loadCatalog(
  def: ServerDefinition,
  session: Session,
  signal: AbortSignal,
  warn: (text: string) => void = () => {},
): Promise<{ catalog: ServerCatalog; tools: SdkTool[] }> {
  const { client } = session;
  const capabilities = (client.getServerCapabilities() ?? {}) as Record<string, unknown>;
  const requestOptions = { signal, timeout: def.startupTimeoutMs };
  // A server without the tools capability may not answer tools/list at all; one that has it must.
  const hints: ListHints = {};
  const listed = capabilities.tools
    ? await listAllTools(client, requestOptions, hints)
    : await listAllTools(client, requestOptions, hints).catch((error) => {
        if (signal.aborted) throw error;
        return [];
      });
  const tools = withoutUnmirrorableTools(listed, session, warn);
  // Tools are what matter; resources, templates and prompts are extras a server may fail to list.
  const optional = <T>(method: string, list: Promise<T>, fallback: T): Promise<T> =>
    list.catch((error) => {
      if (signal.aborted) throw error;
      // Not implementing an optional list is normal (many resource servers have no templates).
      if (isMethodNotFound(error)) return fallback;
      warn(`${method} failed, continuing without: ${error instanceof Error ? error.message : String(error)}`);
      return fallback;
    });
  let resources: ResourceDescriptor[] = [];
  let resourceTemplates: ResourceTemplateDescriptor[] | undefined;
  if (capabilities.resources) {
    resources = await optional('resources/list', listAllResources(client, requestOptions), []);
    resourceTemplates = await optional(
      'resources/templates/list',
      listAllResourceTemplates(client, requestOptions),
      [],
    );
  }
  const prompts = capabilities.prompts
    ? await optional('prompts/list', listAllPrompts(client, requestOptions), undefined)
    : undefined;
  const info = client.getServerVersion();
  const instructions = client.getInstructions();
  const catalog: ServerCatalog = {
    ...(info
      ? {
          serverInfo: {
            name: info.name,
            version: info.version,
            ...(info.title === undefined ? {} : { title: info.title }),
          },
        }
      : {}),
    ...(instructions === undefined ? {} : { instructions }),
    capabilities,
    clientCapabilities: session.declared,
    tools: tools.map(toToolDescriptor),
    resources,
    ...(resourceTemplates ? { resourceTemplates } : {}),
    ...(prompts ? { prompts } : {}),
    transport: session.kind,
    ...(session.protocolVersion === undefined ? {} : { protocolVersion: session.protocolVersion }),
    ...(hints.ttlMs === undefined ? {} : { toolsTtlMs: hints.ttlMs }),
  };
  return { catalog, tools };
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeout: number;
}

export type SdkTool = Awaited<ReturnType<typeof listAllTools>>[number];

/** What a 2026-07-28 list result says about its freshness (first page). */
export interface ListHints {
  ttlMs?: number;
}

export async function listAllTools(client: Client, options: RequestOptions, hints?: ListHints) {
  return paginate(async (cursor) => {
    const page = await client.request({ method: 'tools/list', params: pageParams(cursor) }, options);
    const ttlMs = (page as { ttlMs?: unknown }).ttlMs;
    if (hints && cursor === undefined && Number.isSafeInteger(ttlMs) && (ttlMs as number) >= 0) {
      hints.ttlMs = ttlMs as number;
    }
    return { items: page.tools, nextCursor: page.nextCursor };
  });
}

export async function listAllPrompts(client: Client, options: RequestOptions): Promise<PromptDescriptor[]> {
  const prompts = await paginate(async (cursor) => {
    const page = await client.request({ method: 'prompts/list', params: pageParams(cursor) }, options);
    return { items: page.prompts, nextCursor: page.nextCursor };
  });
  return prompts.map((p) => ({
    name: p.name,
    ...(p.title === undefined ? {} : { title: p.title }),
    ...(p.description === undefined ? {} : { description: p.description }),
    ...(p.arguments === undefined
      ? {}
      : {
          arguments: p.arguments.map((a) => ({
            name: a.name,
            ...(a.description === undefined ? {} : { description: a.description }),
            ...(a.required === undefined ? {} : { required: a.required }),
          })),
        }),
  }));
}

/** The optional fields a resource or template is described by. */
const DESCRIBED_BY = ['title', 'description', 'mimeType'] as const;

export async function listAllResources(
  client: Client,
  options: RequestOptions,
): Promise<ResourceDescriptor[]> {
  const resources = await paginate(async (cursor) => {
    const page = await client.request({ method: 'resources/list', params: pageParams(cursor) }, options);
    return { items: page.resources, nextCursor: page.nextCursor };
  });
  return resources.map((resource) => ({
    uri: resource.uri,
    name: resource.name,
    ...stringFields(resource, DESCRIBED_BY),
  }));
}

export async function listAllResourceTemplates(
  client: Client,
  options: RequestOptions,
): Promise<ResourceTemplateDescriptor[]> {
  const templates = await paginate(async (cursor) => {
    const page = await client.request(
      { method: 'resources/templates/list', params: pageParams(cursor) },
      options,
    );
    return { items: page.resourceTemplates, nextCursor: page.nextCursor };
  });
  return templates.map((template) => ({
    uriTemplate: template.uriTemplate,
    name: template.name,
    ...stringFields(template, DESCRIBED_BY),
  }));
}

/** The params of a list request: the cursor of the page after the first. */
function pageParams(cursor: string | undefined): { cursor?: string } {
  return cursor === undefined ? {} : { cursor };
}

async function paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchPage(cursor);
    items.push(...result.items);
    cursor = result.nextCursor;
    // A repeated cursor would loop forever: stop with what we have.
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return items;
}

/** 2026-07-28 over HTTP: a tool whose `x-mcp-header` marks cannot be honoured is left out (SEP-2243). */
export function withoutUnmirrorableTools(
  tools: SdkTool[],
  session: Session,
  warn: (text: string) => void,
): SdkTool[] {
  if (session.kind !== 'streamable-http' || session.client.getProtocolEra() !== 'modern') return tools;
  return tools.filter((tool) => {
    const problem = headerMarkProblem(tool.inputSchema);
    if (problem) warn(`tool "${tool.name}" is left out: ${problem}`);
    return problem === undefined;
  });
}

export function toToolDescriptor(tool: SdkTool): ToolDescriptor {
  const descriptor: ToolDescriptor = {
    name: tool.name,
    inputSchema: tool.inputSchema as Record<string, unknown>,
  };
  const title = tool.title ?? tool.annotations?.title;
  if (title !== undefined) descriptor.title = title;
  if (tool.description !== undefined) descriptor.description = tool.description;
  if (tool.outputSchema !== undefined) descriptor.outputSchema = tool.outputSchema as Record<string, unknown>;
  if (tool.annotations !== undefined) descriptor.annotations = tool.annotations as Record<string, unknown>;
  return descriptor;
}
