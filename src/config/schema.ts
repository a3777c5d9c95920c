// The JSON schemas of the configuration file. They validate every entry (src/config/validate.ts)
// and document it: the key tables of docs/config.md are rendered from them (src/config/reference.ts).
// `x-default` is the documented default when it is not a single static value.

import {
  CAPTURE_STATS_DEFAULTS,
  OAUTH_DEFAULTS,
  SERVER_DEFAULTS,
  SETTINGS_DEFAULTS,
  TRACE_DEFAULTS,
} from './defaults.ts';
import { type Schema, Type } from './json-schema.ts';

const EXPOSURES = ['direct', 'deferred', 'codemode', 'hidden'];
const ENV_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';
/** Timers (setTimeout, XState delays) overflow past 2^31 - 1 ms, about 24.8 days. */
const MAX_MS = 2_147_483_647;
const MAX_MINUTES = Math.floor(MAX_MS / 60_000);
const MAX_SECONDS = Math.floor(MAX_MS / 1000);

/** Every key of a config object is optional; defaults come from defaults.ts. */
function optional(properties: Record<string, Schema>): Record<string, Schema> {
  return Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)]));
}

/** Scalars users write where strings are meant (`"args": ["--port", 8080]`); turned into strings. */
const Stringish = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
const StringList = Type.Array(Type.String());

export const OAuthSchema = Type.Object(
  optional({
    grantType: Type.Enum(['authorization_code', 'client_credentials', 'jwt-bearer'], {
      description:
        '`authorization_code`: you sign in once in a browser (`/mcp-auth <server>` or `pi-mcp-actors login <server>`). `client_credentials`: a machine client; tokens are fetched on connect, no browser; needs `clientId` and either `clientSecret` or a private key (`privateKey` / `privateKeyFile`). `jwt-bearer` (RFC 7523): tokens are fetched on connect with an identity token as the assertion, no browser; needs `identityToken` (workload identity federation), and `tokenExchange` to trade it for an ID-JAG first (enterprise-managed authorization).',
      default: OAUTH_DEFAULTS.grantType,
    }),
    dpop: Type.Union([Type.Boolean(), Type.Literal('required')], {
      description:
        'DPoP (RFC 9449, SEP-1932): `true` asks for sender-constrained tokens when the authorization server advertises DPoP, `"required"` always does and refuses a Bearer token. The token is presented as `Authorization: DPoP` with a fresh proof per request; server nonces (`use_dpop_nonce`) are answered. The key pair is kept with the sign-in.',
      default: false,
    }),
    identityToken: Type.Object(
      optional({
        env: Type.String({ description: 'Environment variable holding the token.' }),
        file: Type.String({
          description: 'File holding the token (absolute, or from the working directory).',
        }),
        command: StringList,
      }),
      {
        description:
          'With `grantType: "jwt-bearer"`: where the identity token comes from, read at every token request (exactly one of `env`, `file`, `command`; `command` is an argv list run without a shell, its stdout is the token). A secret: never shown or logged.',
        additionalProperties: false,
      },
    ),
    tokenExchange: Type.Object(
      {
        tokenEndpoint: Type.String({ description: "The identity provider's token endpoint." }),
        clientId: Type.String({ description: "This client's `client_id` at the identity provider." }),
        clientSecret: Type.Optional(Type.String({ description: 'Its secret there (interpolated).' })),
      },
      {
        description:
          "Enterprise-managed authorization (SEP-990): the `identityToken` (an OpenID ID token) is first exchanged at this identity provider (RFC 8693, for an ID-JAG whose audience is the MCP server's authorization server and resource the MCP server), and the ID-JAG is the jwt-bearer assertion.",
        additionalProperties: false,
      },
    ),
    clientId: Type.String({
      description:
        'A client registered with the authorization server beforehand (interpolated). Without it: the client ID metadata document (`clientMetadataUrl`), else dynamic client registration (kept and reused).',
    }),
    clientSecret: Type.String({
      description:
        "Secret of `clientId` (interpolated; never shown or logged); sent the way the server's metadata advertises (`client_secret_basic` or `client_secret_post`).",
    }),
    privateKey: Type.String({
      description:
        'PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`…) of `clientId` for `private_key_jwt` client authentication (RFC 7523): each token request carries a short-lived JWT signed with it instead of a secret (interpolated from an environment variable; never shown or logged).',
    }),
    privateKeyFile: Type.String({
      description:
        'Path of a PEM file holding the `privateKey` (interpolated; `~` expands, a relative path is taken from the working directory like `cwd`); read at each token request.',
    }),
    signingAlgorithm: Type.String({
      description:
        'JWS algorithm of the `private_key_jwt` client assertion, matching the key: `RS256`, `RS384`, `RS512`, `PS256`…, `ES256`, `ES384`, `ES512`.',
      default: OAUTH_DEFAULTS.signingAlgorithm,
    }),
    scope: Type.String({
      description:
        'Space-separated scopes, requested only when neither the 401 (`WWW-Authenticate`) nor the resource metadata names any.',
    }),
    redirectUri: Type.String({
      description:
        'Redirect URI to register and send (a loopback `http://127.0.0.1:<port>/<path>`); its port and path are where the callback server listens.',
      'x-default': '`http://127.0.0.1:<callbackPort or a free port>/callback`',
    }),
    callbackPort: Type.Integer({
      minimum: 1,
      maximum: 65535,
      description:
        'Port of the loopback callback server on 127.0.0.1 (for a client registered with a fixed redirect URI).',
      'x-default': 'a free port',
    }),
    clientName: Type.String({
      description: 'Client name sent with dynamic client registration.',
      'x-default': '`pi-mcp-actors`',
    }),
    clientMetadataUrl: Type.String({
      description:
        'HTTPS URL of your client ID metadata document (CIMD); used as the client ID when the authorization server advertises support, else dynamic registration.',
    }),
    authServerMetadataUrl: Type.String({
      description:
        "The authorization server's metadata URL, fetched instead of discovering it (RFC 9728 / RFC 8414); its `issuer` must be the server that publishes it (a well-known URL of the issuer, or a path under it on its origin).",
    }),
    clientRegistration: Type.Enum(['auto', 'dcr', 'cimd'], {
      description:
        "Pi's built-in key: `dcr` always registers dynamically (ignores `clientMetadataUrl`); `auto` and `cimd` use `clientMetadataUrl` when set and supported.",
      'x-default': '`auto`',
    }),
    callbackUrl: Type.String({ description: "Loopback redirect URI (Pi's built-in format)." }),
    authorizationParams: Type.Record(Type.String(), Type.String(), {
      description: 'Extra authorization request parameters (pi-mcp-adapter).',
    }),
    clientUri: Type.String({ description: 'Client home page for registration (pi-mcp-adapter).' }),
    logoUri: Type.String({ description: 'Client logo for registration (pi-mcp-adapter).' }),
    skipIssuerMetadataValidation: Type.Boolean({
      description: 'Accept authorization server metadata whose issuer differs (pi-mcp-adapter).',
    }),
  }),
  {
    additionalProperties: true,
    description:
      'OAuth client settings (see the `oauth` keys). Sign in with `/mcp-auth <server>` or `pi-mcp-actors login <server>`.',
  },
);

/** Per-server keys of the native format (shared by Pi, pi-mcp-adapter, Cursor, Claude, VS Code, Windsurf). */
export const ServerSchema = Type.Object(
  optional({
    enabled: Type.Boolean({
      description: 'Set to false to keep the entry but not start it.',
      default: SERVER_DEFAULTS.enabled,
    }),
    disabled: Type.Boolean({ description: 'Opposite of `enabled` (Windsurf, Cline).', default: false }),
    type: Type.Enum(['stdio', 'http', 'sse', 'streamable-http', 'streamableHttp'], {
      description:
        'Transport. Inferred: `command` → stdio, `url` → http (Streamable HTTP); `sse` selects the legacy SSE transport.',
      'x-default': 'inferred',
    }),
    description: Type.String({ description: 'One line about the server, shown in ToolSearch and /mcp.' }),
    command: Type.String({
      minLength: 1,
      description: 'Executable for a stdio server (interpolated, `~` expanded).',
    }),
    socket: Type.String({
      minLength: 1,
      description:
        'Unix domain socket of a server speaking newline-delimited MCP, e.g. an rmcp-mux service (pi-mcp-adapter; interpolated, `~` expanded, relative to the project). Instead of `command` or `url`; nothing is started or stopped: reconnects follow `lifecycle`.',
    }),
    args: Type.Array(Stringish, {
      description: 'Command arguments (interpolated, leading `~` expanded).',
      default: [],
    }),
    env: Type.Record(Type.String(), Stringish, {
      description: 'Extra environment for the server process (values interpolated; secret).',
      default: {},
    }),
    inheritEnv: Type.Boolean({
      description:
        "stdio: pass this process's whole environment, then `env` over it (as pi-mcp-adapter and Pi's built-in MCP do); false passes only the MCP SDK's safe set (PATH, HOME, USER, SHELL, TERM, LOGNAME) plus `env`.",
      default: SERVER_DEFAULTS.inheritEnv,
    }),
    cwd: Type.String({
      description:
        'Working directory of the server process (interpolated, `~` expanded; relative to the project).',
    }),
    url: Type.String({ minLength: 1, description: 'Endpoint of an http/sse server (interpolated).' }),
    serverUrl: Type.String({ minLength: 1, description: 'Same as `url` (Windsurf).' }),
    headers: Type.Record(Type.String(), Stringish, {
      description: 'HTTP headers (values interpolated; secret).',
      default: {},
    }),
    requestHeadersCommand: Type.Object(
      {
        command: Type.String({ minLength: 1, description: 'Executable (interpolated, `~` expanded).' }),
        args: Type.Optional(Type.Array(Type.String(), { description: 'Arguments (interpolated).' })),
        env: Type.Optional(
          Type.Record(Type.String(), Type.String(), {
            description: 'Extra environment (values interpolated; secret).',
          }),
        ),
        timeoutMs: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 60_000, description: 'Limit per run (default 10000).' }),
        ),
      },
      {
        additionalProperties: false,
        description:
          'http/sse servers (pi-mcp-adapter): a trusted command run for every HTTP request (MCP, and OAuth requests of the connection). It reads `{"version":1,"method","url","bodyBase64"}` on stdin and prints a JSON object of header values, set over every other header; exit 0 within `timeoutMs`, at most 64 KiB. The values are secrets. A failure fails that request (a clear connect or call error).',
      },
    ),
    caFile: Type.String({
      minLength: 1,
      description:
        "https servers: PEM file of a private CA (pi-mcp-adapter). Trusted instead of the default roots for the server's origin (its MCP and same-origin OAuth requests); hostname and expiry checks stay on; redirects are not followed. Interpolated, `~` expanded, relative to the project; a missing or invalid file skips the server.",
    }),
    auth: Type.Union([Type.Enum(['bearer', 'oauth']), Type.Literal(false)], {
      description:
        '`bearer` sends `Authorization: Bearer <token>`; `oauth` signs in with OAuth 2.1 (a URL server with no token of its own does too when it answers 401); false = none.',
      'x-default': '`bearer` when a bearer token is set, `oauth` when an `oauth` block is set',
    }),
    bearerToken: Type.String({ description: 'Static bearer token (interpolated; secret).' }),
    bearerTokenEnv: Type.String({
      pattern: ENV_NAME,
      description: 'Name of the environment variable holding the token.',
    }),
    oauth: OAuthSchema,
    lifecycle: Type.Enum(['lazy', 'eager', 'keep-alive'], {
      description:
        'lazy: connect on first use; eager: connect at session start; keep-alive: eager and reconnect.',
      default: SERVER_DEFAULTS.lifecycle,
    }),
    idleTimeout: Type.Number({
      minimum: 0,
      maximum: MAX_MINUTES,
      description: 'Minutes without use before the connection closes; 0 = never.',
      'x-default': '`settings.idleTimeout` for lazy servers, 0 for eager and keep-alive',
    }),
    startupTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: MAX_MS,
      description: 'Milliseconds allowed to connect and list tools.',
      default: SERVER_DEFAULTS.startupTimeoutMs,
    }),
    requestTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: MAX_MS,
      description: 'Milliseconds allowed for one request (tool call, read).',
      default: SERVER_DEFAULTS.requestTimeoutMs,
    }),
    healthCheckMs: Type.Integer({
      minimum: 0,
      maximum: MAX_MS,
      description:
        'Milliseconds between pings of an eager or keep-alive server while connected; a failed or unanswered ping (10 s, or this interval when shorter) counts as a lost connection. 0 = off.',
      default: SERVER_DEFAULTS.healthCheckMs,
    }),
    timeout: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_SECONDS,
      description:
        "Request timeout in seconds (Pi's built-in format); `requestTimeoutMs` wins when both are set.",
    }),
    exposeResources: Type.Boolean({
      description: 'Expose MCP resources and resource templates as read tools.',
      default: SERVER_DEFAULTS.exposeResources,
    }),
    directTools: Type.Union([Type.Boolean(), StringList], {
      description: 'true: every tool always active; a list: those tools; false: found through ToolSearch.',
      default: SERVER_DEFAULTS.directTools,
    }),
    includeTools: Type.Array(Type.String(), {
      description: 'Only these tools (glob patterns over original tool names).',
      'x-default': 'all tools',
    }),
    excludeTools: Type.Array(Type.String(), {
      description: 'Hide these tools (glob patterns).',
      default: [],
    }),
    disabledTools: Type.Array(Type.String(), { description: 'Same as `excludeTools` (Windsurf).' }),
    exposure: Type.Enum(EXPOSURES, {
      description:
        "Pi's built-in format: default exposure of the server's tools (`deferred`: found through ToolSearch; `codemode`: reachable from Pi's codemode scripts and ToolSearch; `direct`; `hidden`).",
      default: SERVER_DEFAULTS.exposure,
    }),
    toolExposure: Type.Record(Type.String(), Type.Enum(EXPOSURES), {
      description:
        'Per-tool exposure: `{ "pattern": "direct" }`; exact names beat patterns, first pattern wins.',
      default: {},
    }),
    approveTools: Type.Union([Type.Boolean(), StringList], {
      description:
        'Ask the user before a matching tool runs (Allow once / for this session / this server for this session / Deny): true = every tool, or glob patterns over the tool name (as the server names it, as registered `<server>__<tool>`, or pi-mcp-adapter’s `<server>_<tool>`); false = never. Overrides `settings.approveTools`. Without an interactive UI a matching call fails with an error saying so.',
      'x-default': '`settings.approveTools`',
    }),
    roots: Type.Union([Type.Boolean(), StringList], {
      description:
        'The MCP roots (folders) this server is told it may work in: false = none, the roots capability is not declared (as pi-mcp-adapter; a filesystem server keeps the folders in its `args`); true = Pi’s working directory; or a list of folders (interpolated, `~` expanded, relative to the project). Overrides `settings.roots`.',
      'x-default': '`settings.roots`',
    }),
    trace: Type.Boolean({
      description:
        'Write a metadata-only protocol trace of this server (method, direction, id, size, timing; never payloads, arguments, results, URLs or auth) to the session’s trace file (see `settings.trace`).',
      'x-default': '`settings.trace.enabled`',
    }),
    searchKeywords: Type.Record(Type.String(), StringList, {
      description:
        'Extra words ToolSearch matches for tools: `{ "tool-or-glob": ["keyword", …] }` (patterns as in `approveTools`; every matching entry adds its words). Never shown to the model.',
      default: {},
    }),
    toolPrefix: Type.Enum(['server', 'short', 'none', 'mcp'], {
      description:
        'This server’s tool name prefix, overriding `settings.toolPrefix` (pi-mcp-adapter); same values. Not part of the cache identity.',
      'x-default': '`settings.toolPrefix`',
    }),
    protocolVersion: Type.Enum(['legacy', 'auto', '2026-07-28'], {
      description:
        'MCP protocol era to speak: `"legacy"` (the 2025 `initialize` handshake, no probe), `"auto"` (ask the server with `server/discover` and speak 2026-07-28 when it offers it, else fall back to the 2025 handshake; the answer is remembered per server entry, so later connects skip the probe) or `"2026-07-28"` (that revision only, no fallback). Same values as pi-mcp-adapter (whose default is `legacy`).',
      'x-default': '`settings.protocolVersion`',
    }),
    share: Type.Enum(['user', 'project', 'session'], {
      description:
        'Who shares one running copy of this server in the per-user host (`settings.sharedHost`, on by default). `user`: every Pi session and CLI call; `project`: sessions in the same project folder (with the same roots); `session`: never shared, the server runs in each session (for servers that keep per-client state, e.g. a browser or a shell). Unset: `session` for the well-known browser, terminal and other per-client servers (`@playwright/mcp`, `chrome-devtools-mcp`, puppeteer, desktop-commander, sequential-thinking…: the table in docs/shared-host.md), else `project`. Your `share` always wins. Servers with `trace`, `!command` values or a `requestHeadersCommand` always run in the session.',
      'x-default': '`"project"` (`"session"` for browser and terminal servers)',
    }),
    debug: Type.Boolean({
      description:
        "Log the server's stderr, and ask it (`logging/setLevel`) for `debug`-level log messages instead of `info`.",
      default: SERVER_DEFAULTS.debug,
    }),
  }),
  { additionalProperties: true },
);

export const TraceSettingsSchema = Type.Object(
  optional({
    enabled: Type.Boolean({
      description: 'Trace every server that does not set `trace: false`.',
      default: TRACE_DEFAULTS.enabled,
    }),
    file: Type.String({
      description: 'The JSONL file (relative to the project folder); it starts empty each session.',
      'x-default': '`.pi/mcp-traces/mcp-<time>-<random>.jsonl`, one per session',
    }),
    maxBytes: Type.Integer({
      minimum: 1,
      maximum: 1024 ** 3,
      description: 'Tracing stops when the file would grow past this size.',
      default: TRACE_DEFAULTS.maxBytes,
    }),
    maxEvents: Type.Integer({
      minimum: 1,
      maximum: MAX_MS,
      description: 'Tracing stops after this many lines.',
      default: TRACE_DEFAULTS.maxEvents,
    }),
  }),
  {
    additionalProperties: true,
    description:
      'Metadata-only JSONL protocol trace (pi-mcp-adapter): `{ enabled, file, maxBytes, maxEvents }`; a server’s own `trace` overrides `enabled`.',
    'x-default': 'off',
  },
);

export const CaptureStatsSchema = Type.Object(
  optional({
    path: Type.String({
      description: 'Stats file (interpolated, `~` expanded).',
      'x-default': `\`<agentDir>/${CAPTURE_STATS_DEFAULTS.fileName}\``,
    }),
    flushDelayMs: Type.Integer({
      minimum: 0,
      maximum: MAX_MS,
      description: 'Delay before buffered stats are written.',
      default: CAPTURE_STATS_DEFAULTS.flushDelayMs,
    }),
  }),
  { additionalProperties: true },
);

export const SettingsSchema = Type.Object(
  optional({
    toolPrefix: Type.Enum(['server', 'short', 'none', 'mcp'], {
      description:
        'Tool name prefix: `<server>__<tool>`, a shortened server name (without an `mcp` affix), none, or `mcp__<server>__<tool>`. A name taken by another tool gets a short hash suffix and a warning; no tool is lost.',
      default: SETTINGS_DEFAULTS.toolPrefix,
    }),
    protocolVersion: Type.Enum(['legacy', 'auto', '2026-07-28'], {
      description:
        'Default `protocolVersion` of servers that do not set one: `legacy`, `auto` (probe once per server entry, fall back to the 2025 handshake) or `2026-07-28`.',
      default: SETTINGS_DEFAULTS.protocolVersion,
    }),
    idleTimeout: Type.Number({
      minimum: 0,
      maximum: MAX_MINUTES,
      description: 'Minutes before an idle lazy server is closed; 0 = never.',
      default: SETTINGS_DEFAULTS.idleTimeoutMinutes,
    }),
    toonEncode: Type.Union([Type.Boolean(), StringList], {
      description: 'TOON-encode JSON text results: true for every server, or a list of servers.',
      default: SETTINGS_DEFAULTS.toonEncode,
    }),
    captureStats: Type.Union([Type.Boolean(), CaptureStatsSchema], {
      description: 'Record call statistics: true, or `{ path, flushDelayMs }`.',
      default: SETTINGS_DEFAULTS.captureStats,
    }),
    autoAuth: Type.Boolean({
      description:
        'pi-mcp-adapter: with Pi’s UI, a call or ToolSearch that finds a server waiting for a sign-in starts it (as /mcp-auth) and runs once more.',
      default: false,
    }),
    trustedProjectFolders: Type.Array(Type.String(), {
      description:
        'User file only: folders (and the folders below them; `~` expands) whose project files’ servers start without asking, as if allowed (docs/security.md). A project file’s value is ignored.',
    }),
    oauthDir: Type.String({
      description:
        'pi-mcp-adapter: where its legacy plaintext `tokens.json` sign-ins are (relative to the project); read, never written.',
    }),
    oauthCredentialStore: Type.Literal('encrypted-file', {
      description:
        'pi-mcp-adapter: its sign-ins are in its encrypted files (read with `PI_MCP_ADAPTER_OAUTH_FILE_KEY`), not the OS keyring.',
    }),
    directTools: Type.Boolean({
      description: 'Default `directTools` of every server (pi-mcp-adapter; `"search"` is read as false).',
      default: SERVER_DEFAULTS.directTools,
    }),
    requestTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: MAX_MS,
      description: 'Default `requestTimeoutMs` of every server (pi-mcp-adapter).',
      default: SERVER_DEFAULTS.requestTimeoutMs,
    }),
    proxyTool: Type.Boolean({
      description:
        'Also register the single `mcp` gateway tool, for models that cope badly with changing tool sets.',
      default: SETTINGS_DEFAULTS.proxyTool,
    }),
    outputLimitBytes: Type.Integer({
      minimum: 1,
      maximum: 1024 ** 3,
      description: 'Tool output above this many bytes is cut and the full text written to a temp file.',
      default: SETTINGS_DEFAULTS.outputLimitBytes,
    }),
    approveTools: Type.Union([Type.Boolean(), StringList], {
      description:
        'Default `approveTools` of every server (pi-mcp-adapter): true = ask before every MCP tool call, or glob patterns of the tools to ask about.',
      default: SETTINGS_DEFAULTS.approveTools,
    }),
    trace: TraceSettingsSchema,
    sampling: Type.Boolean({
      description:
        'Let servers sample on Pi’s model (`sampling/createMessage`, each server approved by you once per session); false = the sampling capability is not declared to servers (pi-mcp-adapter).',
      default: SETTINGS_DEFAULTS.sampling,
    }),
    samplingAutoApprove: Type.Boolean({
      description:
        'Sampling runs without asking you; also without an interactive UI (print, JSON mode), where it is otherwise refused (pi-mcp-adapter).',
      default: SETTINGS_DEFAULTS.samplingAutoApprove,
    }),
    elicitation: Type.Boolean({
      description:
        'Let servers ask you for input (forms, links) through Pi’s dialogs; false = the elicitation capability is not declared to servers (pi-mcp-adapter).',
      default: SETTINGS_DEFAULTS.elicitation,
    }),
    sharedHost: Type.Boolean({
      description:
        'Run servers in one per-user host process shared by every Pi session, subagent and CLI call (a Unix socket in `<agent dir>/mcp-host/`), so a server another session started is already warm; each server’s `share` says who shares it. On by default; `false` runs every server inside each session (as before the host). A project file may switch it off, not on.',
      default: SETTINGS_DEFAULTS.sharedHost,
    }),
    roots: Type.Union([Type.Boolean(), StringList], {
      description:
        'Default `roots` of every server: false = no roots are sent (pi-mcp-adapter), true = Pi’s working directory, or a list of folders (`~` expanded, relative to the project).',
      default: SETTINGS_DEFAULTS.roots,
    }),
  }),
  {
    additionalProperties: true,
    description:
      'Global settings (see the `settings` keys); project files override user files per key, but only tighten safety settings (docs/security.md).',
  },
);

export const IMPORT_NAMES = [
  'cursor',
  'claude-code',
  'claude-desktop',
  'codex',
  'windsurf',
  'vscode',
  'opencode',
] as const;
export type ImportName = (typeof IMPORT_NAMES)[number];

/** Top-level keys of a config file; the server maps are read by src/config/dialects.ts. */
export const FileSchema = Type.Object(
  optional({
    mcpServers: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Servers by name (native format).',
    }),
    'mcp-servers': Type.Record(Type.String(), Type.Unknown(), { description: 'Same as `mcpServers`.' }),
    servers: Type.Record(Type.String(), Type.Unknown(), {
      description: "Servers by name (VS Code's format).",
    }),
    mcp_servers: Type.Record(Type.String(), Type.Unknown(), {
      description: "Servers by name (Codex's format).",
    }),
    mcp: Type.Record(Type.String(), Type.Unknown(), { description: "Servers by name (OpenCode's format)." }),
    imports: Type.Array(Type.Enum([...IMPORT_NAMES]), {
      description: 'Other clients whose servers are added when their names are not defined here.',
      default: [],
    }),
    settings: SettingsSchema,
    inputs: Type.Array(Type.Unknown(), { description: "VS Code's prompted inputs: not supported, ignored." }),
    $schema: Type.String({ description: 'Ignored.' }),
  }),
  { additionalProperties: true },
);

export function propertiesOf(schema: Schema): Record<string, Schema> {
  return schema.properties ?? {};
}
