import { createHash } from 'node:crypto';
import type { ToolPrefix } from '../config/types.ts';

/** Pi's built-in tools plus the names this extension registers itself. Never shadowed by an MCP tool. */
export const BUILTIN_TOOL_NAMES: ReadonlySet<string> = new Set([
  'read',
  'bash',
  'edit',
  'write',
  'grep',
  'find',
  'ls',
  'ToolSearch',
  'mcp',
]);

/** The `toolPrefix` setting (seed §2). */
export type ToolPrefixMode = ToolPrefix;

/** Original names as the server reported them (any unicode). */
export interface ToolNameRequest {
  server: string;
  tool: string;
  /** This server's own `toolPrefix`, when it overrides the one for all. */
  prefix?: ToolPrefixMode;
}

/** `name` is the name registered with Pi. */
export interface NamedTool {
  server: string;
  tool: string;
  name: string;
}

export interface NamingResult {
  tools: NamedTool[];
  warnings: string[];
}

/** Valid for OpenAI, Anthropic and Gemini function names. */
export const TOOL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
export const MAX_TOOL_NAME_LENGTH = 64;

const SEPARATOR = '__';
const HASH_HEX_LENGTHS = [6, 8, 10, 12, 16, 24, 32, 48];
const LONGEST_PREFIX_WHEN_SHORTENED = 24;

/** Letters that NFKD does not decompose into ASCII. */
const TRANSLITERATIONS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ł: 'l',
  Ł: 'L',
  ı: 'i',
};

function toAscii(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFKD')) {
    const code = ch.codePointAt(0)!;
    if (code >= 0x300 && code <= 0x36f) continue; // combining marks left over from NFKD (accents)
    out += TRANSLITERATIONS[ch] ?? ch;
  }
  return out;
}

/** Replaces every run of characters outside `allowed` with one underscore. */
function replaceInvalid(text: string, allowed: RegExp): string {
  let out = '';
  let inRun = false;
  for (const ch of text) {
    if (allowed.test(ch)) {
      out += ch;
      inRun = false;
    } else if (!inRun) {
      out += '_';
      inRun = true;
    }
  }
  return out;
}

function shortHash(server: string, tool: string, hexLength: number): string {
  return createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, hexLength);
}

function hasAlphanumeric(text: string): boolean {
  return /[A-Za-z0-9]/.test(text);
}

const SHORT_AFFIXES = [/^mcp[-_.\s]+/i, /[-_.\s]+mcp$/i];

interface PrefixInfo {
  prefix: string;
  /** True when the prefix is the server name with only hyphens turned into underscores. */
  faithful: boolean;
}

const prefixes = new Map<string, PrefixInfo>();

/** The same for every tool of a server: worked out once per server and mode. */
function prefixInfo(server: string, mode: ToolPrefixMode): PrefixInfo {
  const key = `${mode}:${server}`;
  let info = prefixes.get(key);
  if (info === undefined) {
    if (prefixes.size > 10_000) prefixes.clear();
    info = computePrefixInfo(server, mode);
    prefixes.set(key, info);
  }
  return info;
}

function computePrefixInfo(server: string, mode: ToolPrefixMode): PrefixInfo {
  if (mode === 'none') return { prefix: '', faithful: true };
  if (mode === 'mcp') {
    // pi-mcp-adapter's `mcp` mode: `mcp__` before the server-mode prefix (`mcp__<server>__<tool>`).
    const inner = prefixInfo(server, 'server');
    return { prefix: `mcp__${inner.prefix}`, faithful: inner.faithful };
  }
  let base = server;
  if (mode === 'short') {
    let stripped = server;
    for (const affix of SHORT_AFFIXES) stripped = stripped.replace(affix, '');
    if (hasAlphanumeric(stripped)) base = stripped;
  }
  // Hyphens become underscores in the prefix (seed §2); runs of underscores collapse and edge ones go,
  // so that the `__` separator stays the only double underscore between prefix and tool.
  const cleaned = replaceInvalid(toAscii(base), /[A-Za-z0-9]/).replace(/^_+|_+$/g, '');
  if (!hasAlphanumeric(cleaned)) return { prefix: `mcp_${shortHash(server, '', 6)}`, faithful: false };
  return { prefix: cleaned, faithful: cleaned === base.replace(/-/g, '_') };
}

/** The server part of a registered name (without the `__` separator); '' for mode `none`. */
export function serverPrefix(server: string, prefix: ToolPrefixMode): string {
  return prefixInfo(server, prefix).prefix;
}

/** Tool names that need no change (nearly all): the catalog is built on Pi's way to the first request. */
const SAFE_TOOL_PART = /^[A-Za-z0-9_-]*$/;

function sanitizeToolPart(tool: string): string {
  return SAFE_TOOL_PART.test(tool) ? tool : replaceInvalid(toAscii(tool), /[A-Za-z0-9_-]/);
}

const VALID_START = /^[A-Za-z_]/;

function joinName(prefix: string, toolPart: string): string {
  const joined = prefix ? `${prefix}${SEPARATOR}${toolPart}` : toolPart;
  return VALID_START.test(joined) ? joined : `_${joined}`;
}

/** Cuts `prefix__tool` so that `suffix` still fits in the length limit, keeping most of the tool part. */
function fitWithSuffix(prefix: string, toolPart: string, suffix: string): string {
  const budget = MAX_TOOL_NAME_LENGTH - suffix.length;
  let body = joinName(prefix, toolPart);
  if (body.length > budget) {
    const keptPrefix = prefix.slice(0, LONGEST_PREFIX_WHEN_SHORTENED);
    const head = keptPrefix ? joinName(keptPrefix, '') : VALID_START.test(toolPart) ? '' : '_';
    body = (head + toolPart).slice(0, budget);
  }
  return body.replace(/_+$/, '') + suffix;
}

interface Candidate {
  request: ToolNameRequest;
  prefix: string;
  toolPart: string;
  /** The full name, or '' when it cannot be used as is (too long, or nothing readable left). */
  base: string;
  /** Nothing but hyphens in the prefix changed: such a tool keeps its name in a collision. */
  faithful: boolean;
  problem?: 'shortened' | 'placeholder';
}

function buildCandidate(request: ToolNameRequest, mode: ToolPrefixMode): Candidate {
  const { prefix, faithful: faithfulPrefix } = prefixInfo(request.server, mode);
  const sanitized = sanitizeToolPart(request.tool);
  const placeholder = !hasAlphanumeric(sanitized);
  const toolPart = placeholder ? 'tool' : sanitized;
  const full = joinName(prefix, toolPart);
  const problem = placeholder ? 'placeholder' : full.length > MAX_TOOL_NAME_LENGTH ? 'shortened' : undefined;
  return {
    request,
    prefix,
    toolPart,
    base: problem ? '' : full,
    faithful: !problem && faithfulPrefix && toolPart === request.tool,
    ...(problem ? { problem } : {}),
  };
}

function compareRequests(a: ToolNameRequest, b: ToolNameRequest): number {
  if (a.server !== b.server) return a.server < b.server ? -1 : 1;
  if (a.tool !== b.tool) return a.tool < b.tool ? -1 : 1;
  return 0;
}

function requestKey(request: ToolNameRequest): string {
  return JSON.stringify([request.server, request.tool]);
}

/** Quotes an original name for a warning: escaped, and cut when very long. */
function quote(text: string): string {
  const cut = [...text];
  return JSON.stringify(cut.length > 80 ? `${cut.slice(0, 77).join('')}...` : text);
}

function describeProblem(candidate: Candidate, reservedFor: string | undefined): string {
  if (candidate.problem === 'placeholder') return 'has no characters usable in a tool name';
  if (candidate.problem === 'shortened') return `would be longer than ${MAX_TOOL_NAME_LENGTH} characters`;
  if (reservedFor !== undefined)
    return `would be named "${candidate.base}", which is reserved for ${quote(reservedFor)}`;
  return `would be named "${candidate.base}" like another tool`;
}

/**
 * Assigns each (server, tool) a registered name `<prefix>__<tool>` that is valid for every major model
 * API, unique (ignoring case), never a builtin or reserved name, and independent of input order: the
 * same set of requests always yields the same names. Collisions, clashes and over-long names get a
 * short sha256 suffix and a warning.
 */
export function assignToolNames(
  requests: ToolNameRequest[],
  prefix: ToolPrefixMode,
  reserved: Iterable<string> = [],
): NamingResult {
  const warnings: string[] = [];
  const reservedKeys = new Map<string, string>();
  for (const name of [...BUILTIN_TOOL_NAMES, ...reserved]) reservedKeys.set(name.toLowerCase(), name);

  const unique = new Map<string, ToolNameRequest>();
  for (const request of requests) {
    const key = requestKey(request);
    if (unique.has(key)) {
      warnings.push(
        `Tool ${quote(request.tool)} of server ${quote(request.server)} is listed twice; kept once.`,
      );
      continue;
    }
    unique.set(key, {
      server: request.server,
      tool: request.tool,
      ...(request.prefix ? { prefix: request.prefix } : {}),
    });
  }

  // Canonical order, so that the outcome does not depend on the order of the requests.
  const candidates = [...unique.values()].map((request) => buildCandidate(request, request.prefix ?? prefix));
  candidates.sort((a, b) => Number(b.faithful) - Number(a.faithful) || compareRequests(a.request, b.request));

  const taken = new Set<string>(reservedKeys.keys());
  const assigned = new Map<string, string>();
  const needsSuffix: Candidate[] = [];
  for (const candidate of candidates) {
    const key = candidate.base.toLowerCase();
    if (!candidate.base || taken.has(key)) {
      needsSuffix.push(candidate);
    } else {
      taken.add(key);
      assigned.set(requestKey(candidate.request), candidate.base);
    }
  }

  for (const candidate of needsSuffix) {
    const { server, tool } = candidate.request;
    let name = '';
    for (const hexLength of HASH_HEX_LENGTHS) {
      name = fitWithSuffix(candidate.prefix, candidate.toolPart, `_${shortHash(server, tool, hexLength)}`);
      if (!taken.has(name.toLowerCase())) break;
    }
    // Only reachable if 48 hex digits of sha256 collide, but the loop must end with a unique name.
    for (let n = 2; taken.has(name.toLowerCase()); n++) {
      name = fitWithSuffix(
        candidate.prefix,
        candidate.toolPart,
        `_${shortHash(server, `${tool}\0${n}`, 12)}`,
      );
    }
    taken.add(name.toLowerCase());
    assigned.set(requestKey(candidate.request), name);
    const reservedFor = candidate.base ? reservedKeys.get(candidate.base.toLowerCase()) : undefined;
    warnings.push(
      `Tool ${quote(tool)} of server ${quote(server)} ${describeProblem(candidate, reservedFor)}; registered as "${name}".`,
    );
  }

  const tools = [...unique.values()].map((request) => ({
    server: request.server,
    tool: request.tool,
    name: assigned.get(requestKey(request))!,
  }));
  return { tools, warnings };
}

/** Reverse lookup from a registered name to its server and original tool name. */
export class ToolNameIndex {
  readonly #byName = new Map<string, NamedTool>();
  readonly #byLowerName = new Map<string, NamedTool>();

  constructor(tools: NamedTool[]) {
    for (const tool of tools) {
      this.#byName.set(tool.name, tool);
      this.#byLowerName.set(tool.name.toLowerCase(), tool);
    }
  }

  /** Exact name first; a case-insensitive match is accepted since names are unique ignoring case. */
  lookup(name: string): NamedTool | undefined {
    return this.#byName.get(name) ?? this.#byLowerName.get(name.toLowerCase());
  }

  get size(): number {
    return this.#byName.size;
  }
}
