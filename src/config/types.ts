// The resolved configuration every other module consumes. The loader (src/config/load.ts) is the only
// producer; defaults are applied there, once, so consumers never guess.

import type { CommandValue } from './command-values.ts';

export type Lifecycle = 'lazy' | 'eager' | 'keep-alive';
export type ToolPrefix = 'server' | 'short' | 'none' | 'mcp';
/**
 * How a tool reaches the model (Pi's tool model): always active; found through ToolSearch; also
 * callable from Pi's codemode scripts (and found through ToolSearch); or not at all.
 */
export type Exposure = 'direct' | 'deferred' | 'codemode' | 'hidden';
export type Transport = 'stdio' | 'http' | 'sse' | 'socket';

/** Where a value came from: the file and the JSON path inside it (e.g. `mcpServers.github.args[2]`). */
export interface SourceRef {
  file: string;
  kind: 'user' | 'flag' | 'import' | 'project';
  /** For imports: which client the file belongs to (cursor, claude-code, codex, ...). */
  importedFrom?: string;
  keyPath: string;
}

/** Where an external identity token comes from, read at each token request (it may rotate). */
export interface IdentityTokenSource {
  /** Environment variable holding the token. */
  env?: string;
  /** Absolute path of a file holding the token (e.g. a projected service-account token). */
  file?: string;
  /** Command (argv, no shell) that prints the token on stdout. */
  command?: string[];
}

/** RFC 8693 token exchange at the enterprise identity provider: identity token in, ID-JAG out. */
export interface TokenExchangeConfig {
  tokenEndpoint: string;
  /** This client's `client_id` at the identity provider. */
  clientId: string;
  clientSecret?: string;
}

export interface OAuthConfig {
  grantType: 'authorization_code' | 'client_credentials' | 'jwt-bearer';
  /** SEP-1932 / RFC 9449: DPoP-bound tokens when the server offers them (true), or always ("required"). */
  dpop?: boolean | 'required';
  /** jwt-bearer: the identity token (workload identity, or the user's ID token to exchange). */
  identityToken?: IdentityTokenSource;
  /** jwt-bearer, enterprise-managed: exchange the identity token for an ID-JAG first. */
  tokenExchange?: TokenExchangeConfig;
  clientId?: string;
  clientSecret?: string;
  /** PKCS#8 PEM private key for `private_key_jwt` client authentication (RFC 7523); a secret. */
  privateKey?: string;
  /** Absolute path of a PEM file holding `privateKey`; read when a token is requested. */
  privateKeyFile?: string;
  /** JWS algorithm of the client assertion (`RS256` when absent). */
  signingAlgorithm?: string;
  scope?: string;
  redirectUri?: string;
  callbackPort?: number;
  clientName?: string;
  clientMetadataUrl?: string;
  authServerMetadataUrl?: string;
  /** Pi's built-in format: how the client registers (`auto` when absent). */
  clientRegistration?: 'auto' | 'dcr' | 'cimd';
  /** Extra parameters of the authorization request (pi-mcp-adapter); never override the flow's own. */
  authorizationParams?: Record<string, string>;
  clientUri?: string;
  logoUri?: string;
  /** Accept authorization-server metadata whose issuer differs from where it was found (pi-mcp-adapter). */
  skipIssuerMetadataValidation?: boolean;
}

export interface RequestHeadersCommand {
  command: string;
  args: string[];
  /** Over this process's environment (values are secrets). */
  env: Record<string, string>;
  timeoutMs?: number;
}

/** The native keys, validated. Scalars in args/env/headers are stringified later. */
export interface ServerFields {
  enabled?: boolean;
  disabled?: boolean;
  type?: 'stdio' | 'http' | 'sse' | 'streamable-http' | 'streamableHttp';
  description?: string;
  command?: string;
  socket?: string;
  args?: Array<string | number | boolean>;
  env?: Record<string, string | number | boolean>;
  cwd?: string;
  url?: string;
  serverUrl?: string;
  headers?: Record<string, string | number | boolean>;
  caFile?: string;
  requestHeadersCommand?: {
    command: string;
    args?: string[];
    env?: Record<string, string>;
    timeoutMs?: number;
  };
  auth?: 'bearer' | 'oauth' | false;
  bearerToken?: string;
  bearerTokenEnv?: string;
  oauth?: Record<string, unknown>;
  lifecycle?: 'lazy' | 'eager' | 'keep-alive';
  idleTimeout?: number;
  startupTimeoutMs?: number;
  requestTimeoutMs?: number;
  healthCheckMs?: number;
  timeout?: number;
  exposeResources?: boolean;
  directTools?: boolean | string[];
  includeTools?: string[];
  excludeTools?: string[];
  disabledTools?: string[];
  exposure?: 'direct' | 'deferred' | 'codemode' | 'hidden';
  toolExposure?: Record<string, 'direct' | 'deferred' | 'codemode' | 'hidden'>;
  debug?: boolean;
  inheritEnv?: boolean;
  approveTools?: boolean | string[];
  roots?: boolean | string[];
  toolPrefix?: 'server' | 'short' | 'none' | 'mcp';
  protocolVersion?: 'legacy' | 'auto' | '2026-07-28';
  searchKeywords?: Record<string, string[]>;
  trace?: boolean;
  share?: 'user' | 'project' | 'session';
}

/** One server, fully resolved: interpolated, defaulted, validated. */
export interface ServerDefinition {
  name: string;
  source: SourceRef;
  transport: Transport;
  description?: string;
  // stdio
  command?: string;
  args: string[];
  /** Configured env only (interpolated); the SDK's default env is added by the adapter. */
  env: Record<string, string>;
  cwd?: string;
  /**
   * Where a stdio server without a `cwd` of its own runs when that is not this process's folder: a
   * shared host's instance runs in the session's project (or home) folder. Unlike `cwd`, npx still
   * resolves a user server's package outside that folder (src/adapters/mcp/npx-connector.ts), and a
   * user server whose launcher reads its folder starts in the home folder (src/adapters/mcp/launcher-guard.ts).
   */
  runsIn?: string;
  /** socket: the Unix domain socket's path (interpolated, `~` expanded, absolute). */
  socket?: string;
  /** Pass the whole process environment (pi-mcp-adapter's `inheritEnv`). */
  inheritEnv: boolean;
  // http / sse
  url?: string;
  headers: Record<string, string>;
  /** https: PEM file of the private CA trusted for this server's origin (absolute); replaces the default roots there. */
  caFile?: string;
  /** Run for every HTTP request; its JSON output adds headers (pi-mcp-adapter). Interpolated. */
  requestHeadersCommand?: RequestHeadersCommand;
  /** `bearer` adds `Authorization: Bearer <bearerToken>`; resolved from bearerToken / bearerTokenEnv. */
  auth?: 'bearer' | 'oauth' | false;
  bearerToken?: string;
  /** `!command` values of env, headers and bearerToken: run when the server connects. */
  commandValues?: CommandValue[];
  /** Values of `${VAR}`s the key policy (src/redact/key-policy.ts) calls secret, wherever they were put; never shown. */
  secretValues?: string[];
  oauth?: OAuthConfig;
  // lifecycle (milliseconds everywhere; the file says minutes / seconds where users expect them)
  lifecycle: Lifecycle;
  /** 0 = never close when idle. */
  idleTimeoutMs: number;
  startupTimeoutMs: number;
  requestTimeoutMs: number;
  /** Ping interval for eager and keep-alive servers while connected; 0 = no health checks. */
  healthCheckMs: number;
  // tools
  exposeResources: boolean;
  /** true = every tool direct, list = those tools direct, false = deferred. */
  directTools: boolean | string[];
  /** Glob patterns over original tool names. */
  includeTools?: string[];
  excludeTools: string[];
  /** Default exposure for this server's tools (Pi built-in format); `directTools` refines it. */
  exposure: Exposure;
  /** Per-tool exposure, first matching pattern wins; exact names beat patterns. */
  toolExposure: Array<{ pattern: string; exposure: Exposure }>;
  /** Ask the user before these tools run: true = all, a list = glob patterns; absent or false = none. */
  approveTools?: boolean | string[];
  /** The MCP roots the server is given: false = none (the capability is not declared), true = Pi's working directory, or these absolute folders; absent = false. */
  roots?: Roots;
  /** Write a metadata-only protocol trace (server `trace`, else `settings.trace.enabled`); absent = no. */
  trace?: boolean;
  /** Extra ToolSearch words per tool pattern (pi-mcp-adapter); never shown to the model. */
  searchKeywords?: Record<string, string[]>;
  /** This server's own `toolPrefix` (pi-mcp-adapter); absent: `settings.toolPrefix`. */
  toolPrefix?: ToolPrefix;
  debug: boolean;
  /** Defined by a file inside the project (allowed by the user): its npx resolves packages there too. */
  fromProject?: boolean;
  /** Content hashes of the project files it names, as allowed: a changed script is another shared-host copy. */
  consentScripts?: Record<string, string>;
  /** MCP protocol era: `legacy` (2025 initialize), `auto` (probe, legacy fallback) or the pinned `2026-07-28`; absent = `auto`. */
  protocolVersion?: ProtocolVersionMode;
  /** The metadata cache identity, computed like pi-mcp-adapter from the entry as written. */
  configHash?: string;
  /** Who shares one running instance in the shared host (`settings.sharedHost`); absent = `project`. */
  share?: ShareScope;
}

/** `user`: one instance for every session; `project`: one per project folder; `session`: never shared. */
export type ShareScope = 'user' | 'project' | 'session';

/** pi-mcp-adapter's `protocolVersion` values. */
export type ProtocolVersionMode = 'legacy' | 'auto' | '2026-07-28';

export const PROTOCOL_VERSION_MODES: readonly ProtocolVersionMode[] = ['legacy', 'auto', '2026-07-28'];

export interface Settings {
  toolPrefix: ToolPrefix;
  /** Default `protocolVersion` of servers that do not set it. */
  protocolVersion: ProtocolVersionMode;
  /** Default idle timeout for lazy servers, ms; 0 = never. */
  idleTimeoutMs: number;
  /** TOON-encode JSON text results: for every server, or for the listed ones. */
  toonEncode: boolean | string[];
  captureStats: false | { path: string; flushDelayMs: number };
  /** Register the single `mcp` gateway tool (older design) instead of / besides ToolSearch. */
  proxyTool: boolean;
  /** Output guard: text above this many bytes is cut and spilled to a temp file. */
  outputLimitBytes: number;
  /** Default `directTools` of servers that do not set it. */
  directTools: boolean;
  /** Default `requestTimeoutMs` of servers that set neither it nor `timeout`. */
  requestTimeoutMs: number;
  /** Default `approveTools` of servers that do not set it. */
  approveTools: boolean | string[];
  /** Default `roots` of servers that do not set it (folders absolute). */
  roots: Roots;
  /** Servers may sample on Pi's model (the capability is declared). */
  sampling: boolean;
  /** Sampling needs no approval, and works without UI. */
  samplingAutoApprove: boolean;
  /** Servers may ask the user for input (the capability is declared). */
  elicitation: boolean;
  /** The protocol trace file: as configured (`file` relative to the session's folder) and its bounds. */
  trace: { enabled: boolean; file?: string; maxBytes: number; maxEvents: number };
  /** Sign in when a call or search finds a server waiting for it (with a UI), then run once more. */
  autoAuth?: boolean;
  /** pi-mcp-adapter's sign-in store, as its settings name it (its sign-ins are read from there). */
  adapterSignIns?: { oauthDir?: string; oauthCredentialStore?: 'encrypted-file' };
  /** Run shared servers in the per-user host (src/host/) instead of in the session. */
  sharedHost: boolean;
  /** Direct tools requested by the MCP_DIRECT_TOOLS environment variable, already parsed. */
  directToolsEnv?: DirectToolsSpec;
}

/** Parsed MCP_DIRECT_TOOLS: `*`, `server`, `server/tool`, or `__none__`. */
export type DirectToolsSpec =
  | { kind: 'none' }
  | { kind: 'all' }
  | { kind: 'list'; servers: string[]; tools: Array<{ server: string; tool: string }> };

export type DiagnosticLevel = 'error' | 'warning' | 'info';

export interface Diagnostic {
  level: DiagnosticLevel;
  /** Stable machine-readable kind, e.g. `invalid-json`, `missing-variable`, `unknown-key`. */
  code: string;
  file?: string;
  /** JSON path inside the file, e.g. `mcpServers.github.env.TOKEN`. */
  path?: string;
  server?: string;
  message: string;
  /** The fix, when it is obvious. */
  fix?: string;
}

export interface SkippedServer {
  name: string;
  source: SourceRef;
  reason: string;
  /** What the user can do about it. */
  fix?: string;
}

/** A server of a project file the user has not allowed yet: what it would run, for the consent question. */
export interface PendingServer {
  name: string;
  source: SourceRef;
  /** ./project-consent.ts consentKey of the entry as written. */
  key: string;
  /** The project files the entry names directly, with their content hashes (./consent-scripts.ts). */
  scripts?: Record<string, string>;
  /** Allowed before, asked again: why ("./server.sh changed since you allowed it"). */
  changed?: string;
  /** The command line (as written, `${VAR}` unresolved), the URL, or the socket. */
  runs: string;
  /** Environment variables it sets, and headers it sends (names only). */
  envKeys: string[];
  headerKeys: string[];
  /** A stdio server also gets this process's whole environment (inheritEnv). */
  inheritsEnv: boolean;
  /** Allowed, it would replace the server of the same name defined in this (user) file; denied, that one runs. */
  replaces?: string;
  /** The entry's validated fields as written (`${VAR}` unresolved): what ./consent-lines.ts shows. */
  fields?: ServerFields;
}

export interface LoadedConfig {
  /** Enabled, valid, permitted servers, in a stable order (by name). */
  servers: ServerDefinition[];
  /** Disabled, invalid, or untrusted-project servers, each with its reason. */
  skipped: SkippedServer[];
  settings: Settings;
  diagnostics: Diagnostic[];
  /** Servers of project files waiting for the user's consent (not started; listed in `skipped` too, unless the user's own server of that name runs). */
  pending?: PendingServer[];
  /** Every file that was read (or attempted), for /mcp and the CLI. */
  files: Array<{ file: string; kind: SourceRef['kind']; found: boolean }>;
}

/** What a server is told its roots are: none, the session's working directory, or these folders. */
export type Roots = boolean | string[];
