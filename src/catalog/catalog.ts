// The catalog: every MCP tool (and resource-as-tool) the model can reach this session, with its
// registered name, exposure and schema. Derived from the servers' catalogs (live or cached); names
// stay stable within a session so a tool never changes name under the model.

import type { DirectToolsSpec, Exposure, ServerDefinition, ToolPrefix } from '../config/types.ts';
import type {
  JsonSchema,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
  ToolDescriptor,
} from '../ports/mcp.ts';
import { MAX_DESCRIPTION_CHARS, plainText } from '../terminal-text.ts';
import { isToolIncluded, resolveExposure } from './exposure.ts';
import { matchesToolPattern } from './name-patterns.ts';
import { assignToolNames, BUILTIN_TOOL_NAMES } from './naming.ts';
import { boundedSchema, MAX_SCHEMA_DEPTH } from './schema-depth.ts';
import { templateVariables } from './uri-template.ts';

export interface CatalogEntry {
  /** Registered (model-facing) name. */
  name: string;
  server: string;
  /** Original MCP tool name; for resources and resource templates the derived `read_<name>`. */
  tool: string;
  kind: 'tool' | 'resource' | 'template';
  uri?: string;
  /** A resource template's RFC 6570 URI template; the call's arguments fill in its variables. */
  uriTemplate?: string;
  description: string;
  /** The tool's own display title, when it has one. */
  title?: string;
  inputSchema: JsonSchema;
  exposure: Exclude<Exposure, 'hidden'>;
  /** The MCP tool annotations its server declared (readOnlyHint, destructiveHint, …). */
  annotations?: Record<string, unknown>;
  /** Extra words ToolSearch matches (`searchKeywords`); never shown to the model. */
  keywords?: string[];
}

export interface ServerTools {
  definition: ServerDefinition;
  tools?: ToolDescriptor[];
  resources?: ResourceDescriptor[];
  resourceTemplates?: ResourceTemplateDescriptor[];
  /** What the server says about itself at initialize (serverInfo.title, instructions). */
  title?: string;
  instructions?: string;
}

export interface Catalog {
  entries: CatalogEntry[];
  byName: ReadonlyMap<string, CatalogEntry>;
  /** Server descriptions by name, for the search index (src/catalog/search.ts builds it on first use). */
  serverDescriptions: ReadonlyMap<string, string | undefined>;
  warnings: string[];
}

const EMPTY_OBJECT_SCHEMA: JsonSchema = { type: 'object', properties: {} };
const CUT_SCHEMA_NOTE = 'Its input schema is too deep to declare whole; its deepest parts accept any value.';
/** Property names every major model API accepts. */
const PARAMETER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export function resourceToolName(resource: { name: string; uri: string }): string {
  const base = (resource.name || resource.uri)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return `read_${base || 'resource'}`;
}

/** An entry before it is named. */
type Candidate = Omit<CatalogEntry, 'name'>;

function candidatesOf(
  server: ServerTools,
  prefix: ToolPrefix,
  env: DirectToolsSpec | undefined,
  warnings: string[],
): Candidate[] {
  const def = server.definition;
  const out: Candidate[] = [];
  const seen = new Set<string>();
  /** Whether a resource's tool name is already a tool's (said in a warning). */
  const taken = (tool: string, what: string): boolean => {
    if (seen.has(tool)) warnings.push(`${def.name}: ${what} not exposed: a tool is already named ${tool}`);
    return seen.has(tool);
  };
  /** The exposure of a name the config includes and does not hide (then it is taken), else undefined. */
  const exposed = (tool: string) => {
    if (!isToolIncluded(def, tool, prefix)) return undefined;
    const exposure = resolveExposure(def, tool, env);
    if (exposure === 'hidden') return undefined;
    seen.add(tool);
    return exposure;
  };
  for (const tool of server.tools ?? []) {
    const exposure = exposed(tool.name);
    if (exposure === undefined) continue;
    const bounded = boundedSchema(isObjectSchema(tool.inputSchema) ? tool.inputSchema : EMPTY_OBJECT_SCHEMA);
    const description = plainText(tool.description ?? tool.title ?? '', MAX_DESCRIPTION_CHARS);
    if (bounded.cut)
      warnings.push(
        `${def.name}: tool ${tool.name} has an input schema nested deeper than ${MAX_SCHEMA_DEPTH} levels; it is cut there (deeper arguments are passed to the server unchecked)`,
      );
    out.push({
      server: def.name,
      tool: tool.name,
      kind: 'tool',
      description: bounded.cut ? `${description}\n(${CUT_SCHEMA_NOTE})`.trim() : description,
      ...(tool.title ? { title: plainText(tool.title, 200) } : {}),
      inputSchema: bounded.schema,
      exposure,
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
    });
  }
  if (!def.exposeResources) return out;
  for (const resource of server.resources ?? []) {
    const tool = resourceToolName(resource);
    if (taken(tool, `resource ${resource.uri}`)) continue;
    const exposure = exposed(tool);
    if (exposure === undefined) continue;
    out.push({
      server: def.name,
      tool,
      kind: 'resource',
      uri: resource.uri,
      description: plainText(
        `Read resource ${resource.uri}${resource.description ? `: ${resource.description}` : ''}`,
        MAX_DESCRIPTION_CHARS,
      ),
      inputSchema: EMPTY_OBJECT_SCHEMA,
      exposure,
    });
  }
  for (const template of server.resourceTemplates ?? []) {
    const tool = resourceToolName({ name: template.name, uri: template.uriTemplate });
    if (taken(tool, `resource template ${template.uriTemplate}`)) continue;
    // Model APIs refuse a whole request when one parameter name is outside this pattern.
    const unusable = templateVariables(template.uriTemplate).find((v) => !PARAMETER_NAME.test(v.name));
    if (unusable) {
      warnings.push(
        `${def.name}: resource template ${template.uriTemplate} not exposed: its variable "${unusable.name}" cannot be a tool parameter name`,
      );
      continue;
    }
    const exposure = exposed(tool);
    if (exposure === undefined) continue;
    out.push({
      server: def.name,
      tool,
      kind: 'template',
      uriTemplate: template.uriTemplate,
      description: plainText(templateDescription(template), MAX_DESCRIPTION_CHARS),
      ...(template.title ? { title: plainText(template.title, 200) } : {}),
      inputSchema: templateSchema(template.uriTemplate),
      exposure,
    });
  }
  return out;
}

function templateDescription(template: ResourceTemplateDescriptor): string {
  const mime = template.mimeType ? ` (${template.mimeType})` : '';
  const about = template.description ? `: ${template.description}` : '';
  return `Read a resource from the URI template ${template.uriTemplate}${mime}${about}`;
}

/** One string parameter per template variable; those of a `{?…}`/`{&…}` query part are optional. */
function templateSchema(uriTemplate: string): JsonSchema {
  const variables = templateVariables(uriTemplate);
  const properties = Object.fromEntries(
    variables.map((v) => [v.name, { type: 'string', description: `The {${v.name}} part of ${uriTemplate}` }]),
  );
  const required = variables.filter((v) => v.required).map((v) => v.name);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

function isObjectSchema(schema: unknown): schema is JsonSchema {
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema);
}

/** What search knows of a server besides its name: configured description, title, first instructions. */
function serverAbout(s: ServerTools): string | undefined {
  const parts = [s.definition.description, s.title, s.instructions?.slice(0, 300)].filter(
    (p): p is string => typeof p === 'string' && p.trim() !== '',
  );
  return parts.length > 0 ? parts.join('\n') : undefined;
}

/** The words of every `searchKeywords` pattern the tool matches, once each. */
function keywordsOf(map: Record<string, string[]> | undefined, entry: CatalogEntry): string[] {
  if (!map) return [];
  const words = Object.entries(map).flatMap(([pattern, values]) =>
    matchesToolPattern(entry, [pattern]) ? values.map((v) => v.trim()).filter(Boolean) : [],
  );
  return [...new Set(words)];
}

const pairKey = (server: string, tool: string) => `${server}\u0000${tool}`;

/**
 * Builds the catalog. With `previous`, every (server, tool) pair that already had a name keeps it and
 * new pairs are named around the names already taken.
 */
export function buildCatalog(
  servers: ServerTools[],
  options: { toolPrefix: ToolPrefix; directToolsEnv?: DirectToolsSpec; previous?: Catalog },
): Catalog {
  const warnings: string[] = [];
  const definitions = new Map(servers.map((s) => [s.definition.name, s.definition]));
  const prefixOf = new Map(servers.map((s) => [s.definition.name, s.definition.toolPrefix]));
  const candidates = servers.flatMap((s) =>
    candidatesOf(s, s.definition.toolPrefix ?? options.toolPrefix, options.directToolsEnv, warnings),
  );
  const previousNames = new Map<string, string>();
  for (const e of options.previous?.entries ?? []) previousNames.set(pairKey(e.server, e.tool), e.name);

  const fresh = candidates.filter((c) => !previousNames.has(pairKey(c.server, c.tool)));
  const naming = assignToolNames(
    fresh.map((c) => {
      const prefix = prefixOf.get(c.server);
      return { server: c.server, tool: c.tool, ...(prefix ? { prefix } : {}) };
    }),
    options.toolPrefix,
    [...previousNames.values()],
  );
  warnings.push(...naming.warnings);
  const assigned = new Map<string, string>();
  for (const t of naming.tools) assigned.set(pairKey(t.server, t.tool), t.name);

  const entries: CatalogEntry[] = [];
  for (const c of candidates) {
    const key = pairKey(c.server, c.tool);
    const name = previousNames.get(key) ?? assigned.get(key);
    if (!name || BUILTIN_TOOL_NAMES.has(name)) continue;
    const entry: CatalogEntry = { name, ...c };
    if (c.uri === undefined) delete entry.uri;
    if (c.uriTemplate === undefined) delete entry.uriTemplate;
    const keywords = keywordsOf(definitions.get(c.server)?.searchKeywords, entry);
    if (keywords.length > 0) entry.keywords = keywords;
    entries.push(entry);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const byName = new Map(entries.map((e) => [e.name, e]));
  const serverDescriptions = new Map(servers.map((s) => [s.definition.name, serverAbout(s)]));
  return { entries, byName, warnings, serverDescriptions };
}
