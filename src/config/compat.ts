// Keys that pi-mcp-adapter 2.36 or Pi 1.5's built-in MCP accept and that have no native counterpart
// here: each is mapped to ours, or dropped, with an `info` diagnostic naming what happens. None makes
// a server invalid. The tables also render the compatibility table of docs/config.md.

import { isPlainObject } from '../plain-object.ts';

export type CompatSource = 'pi-mcp-adapter' | 'Pi' | 'pi-mcp-adapter, Pi';

export interface CompatKey {
  from: CompatSource;
  /** What we do with it; completes `"<key>" …` in the diagnostic. */
  does: string;
  /**
   * Rewrites the entry (a copy) for this key's value (removing the key when it is not ours); returns
   * what was done (with `level: 'warning'` when the server cannot work as configured), or undefined
   * when the value is already ours (no note). Without `map` the key is dropped with a note saying `does`.
   */
  map?: (
    value: unknown,
    entry: Record<string, unknown>,
  ) => string | { done: string; level: 'warning' } | undefined;
}

const dropped = (from: CompatSource, does: string): CompatKey => ({ from, does });

/** pi-mcp-adapter's `directTools: "search"` (in a server or in the settings) is our `false`. */
const searchAsFalse: CompatKey['map'] = (value, block) => {
  if (value !== 'search') return undefined;
  block.directTools = false;
  return 'is "search": read as false (tools are found and loaded through ToolSearch)';
};

/** Values of native keys that only the other two accept. */
export const SERVER_VALUE_COMPAT: Record<string, CompatKey> = {
  directTools: {
    from: 'pi-mcp-adapter',
    does: '`"search"` is read as `false`: the tools are found and loaded through ToolSearch, as its search mode does',
    map: searchAsFalse,
  },
  lifecycle: {
    from: 'pi-mcp-adapter',
    does: '`"lazy-keep-alive"` is read as `lazy` with `idleTimeout: 0` (starts on first use, never closed for idleness)',
    map: (value, entry) => {
      if (value !== 'lazy-keep-alive') return undefined;
      entry.lifecycle = 'lazy';
      entry.idleTimeout ??= 0;
      return 'is "lazy-keep-alive": read as "lazy" with idleTimeout 0';
    },
  },
  exposure: {
    from: 'Pi',
    does: '`"codemode-deferred"` is read as `codemode` (Pi’s alias)',
    map: (value, entry) => {
      if (value !== 'codemode-deferred') return undefined;
      entry.exposure = 'codemode';
      return 'is "codemode-deferred": read as "codemode" (Pi’s alias)';
    },
  },
  toolExposure: {
    from: 'Pi',
    does: '`"codemode-deferred"` values are read as `codemode`',
    map: (value, entry) => {
      if (!isPlainObject(value) || !Object.values(value).includes('codemode-deferred')) return undefined;
      entry.toolExposure = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, v === 'codemode-deferred' ? 'codemode' : v]),
      );
      return 'has "codemode-deferred": read as "codemode"';
    },
  },
  oauth: {
    from: 'pi-mcp-adapter',
    does: '`false` is read as no OAuth block (`auth: false` turns sign-in off)',
    map: (value, entry) => {
      if (value !== false) return undefined;
      delete entry.oauth;
      return 'is false: read as no OAuth block';
    },
  },
};

/** Server keys only the other two know. */
export const SERVER_COMPAT: Record<string, CompatKey> = {
  httpTransport: {
    from: 'pi-mcp-adapter',
    does: 'mapped to `type` (`"sse"` → `type: "sse"`, `"streamable-http"` → `type: "http"`)',
    map: (value, entry) => {
      if (value === 'sse' || value === 'streamable-http') {
        entry.type ??= value === 'sse' ? 'sse' : 'http';
        delete entry.httpTransport;
        return `mapped to "type": "${entry.type}"`;
      }
      delete entry.httpTransport;
      return 'has an unknown value and is ignored (the transport is inferred from "url")';
    },
  },
  tasks: dropped(
    'pi-mcp-adapter',
    'is not applied: tasks are polled at the interval each server asks for, in both eras',
  ),
  bearerTokenStore: {
    from: 'pi-mcp-adapter',
    does: 'is not read: pi-mcp-adapter keeps these tokens only in the OS keyring (no file store), which needs a native module to read; give the token with `bearerTokenEnv` or `bearerToken` (without one, `auth: "bearer"` is read as no auth, with a warning, and the server is kept)',
    map: (value, entry) => {
      delete entry.bearerTokenStore;
      const tokenless = entry.bearerToken === undefined && entry.bearerTokenEnv === undefined;
      const why =
        'is not read: pi-mcp-adapter keeps these tokens only in the OS keyring, which needs a native module to read';
      if (value !== true || !tokenless || entry.auth !== 'bearer') return why;
      entry.auth = false;
      return {
        done: `${why}; the server is kept without a token: give it with "bearerTokenEnv" or "bearerToken"`,
        level: 'warning',
      };
    },
  },
  pluginDataDir: dropped('pi-mcp-adapter', 'is internal to Agent Plugins and ignored'),
  literalEnv: dropped('pi-mcp-adapter', 'is internal to Agent Plugins and ignored'),
};

/** Settings only the other two know; `map` rewrites the settings block (a copy). */
export const SETTINGS_COMPAT: Record<string, CompatKey> = {
  directTools: {
    from: 'pi-mcp-adapter',
    does: 'the default `directTools` of every server (`"search"` is read as `false`)',
    map: searchAsFalse,
  },
  outputGuard: {
    from: 'pi-mcp-adapter',
    does: 'mapped to `outputLimitBytes` (`maxBytes`; `false` = 1 GiB, i.e. no cut; `maxLines`/`detailsMaxBytes` are not used)',
    map: (value, settings) => {
      delete settings.outputGuard;
      if (settings.outputLimitBytes !== undefined) return 'is ignored: "outputLimitBytes" is set';
      if (value === false) settings.outputLimitBytes = 1024 ** 3;
      else if (isPlainObject(value) && typeof value.maxBytes === 'number')
        settings.outputLimitBytes = value.maxBytes;
      else return 'is read as the default output limit';
      return `mapped to "outputLimitBytes": ${settings.outputLimitBytes}`;
    },
  },
  disableProxyTool: {
    from: 'pi-mcp-adapter',
    does: 'mapped to `proxyTool` (the opposite; our `mcp` gateway is off unless `proxyTool: true`)',
    map: (value, settings) => {
      delete settings.disableProxyTool;
      if (typeof value !== 'boolean' || settings.proxyTool !== undefined) return 'is ignored';
      if (value) settings.proxyTool = false;
      return value
        ? 'mapped to "proxyTool": false'
        : 'is read as the default: ToolSearch is the gateway; set "proxyTool": true for the single `mcp` tool';
    },
  },
  freezeDirectTools: dropped(
    'pi-mcp-adapter',
    'is always the case here: the tool surface the model sees stays byte-stable during a session',
  ),
  scriptMode: dropped(
    'pi-mcp-adapter',
    'has no counterpart: MCP tools are registered for Pi’s own `codemode`',
  ),
  namespaceProxyTools: dropped(
    'pi-mcp-adapter',
    'has no counterpart: tools carry a Pi `namespace` per server',
  ),
  autoAuth: {
    from: 'pi-mcp-adapter',
    does: 'where Pi can wait for a browser (interactive, RPC), a call or ToolSearch that finds a server waiting for a sign-in starts the sign-in of `/mcp-auth <server>` and runs once more when it succeeds; in print and JSON mode the error names `/mcp-auth <server>`',
    map: () => undefined,
  },
  oauthCredentialStore: {
    from: 'pi-mcp-adapter',
    does: 'its sign-ins are read (never written) from its encrypted files `<agentDir>/mcp-oauth-encrypted/` with `PI_MCP_ADAPTER_OAUTH_FILE_KEY`; the OS keyring it uses otherwise is not read (sign in once more; the needs-auth error says so)',
    map: () => undefined,
  },
  oauthDir: {
    from: 'pi-mcp-adapter',
    does: 'its legacy plaintext `<dir>/sha256-<name hash>/tokens.json` sign-ins are read from there (`MCP_OAUTH_DIR` wins; default `<agentDir>/mcp-oauth`), never written',
    map: () => undefined,
  },
  authRequiredMessage: dropped('pi-mcp-adapter', 'is not applied; failed calls name `/mcp-auth <server>`'),
  jev: dropped('pi-mcp-adapter', 'is not used (no remote semantic search)'),
  hostConfigDiscovery: dropped('pi-mcp-adapter', 'is not applied; list other clients in `imports`'),
  ancestorConfigRoots: dropped('pi-mcp-adapter', 'is not applied'),
  agentPluginPaths: dropped('pi-mcp-adapter', 'is not applied (Agent Plugins are not loaded)'),
  showStatusIcon: dropped('pi-mcp-adapter', 'is a display option of pi-mcp-adapter; ignored'),
  mcpFooterStatus: dropped('pi-mcp-adapter', 'is a display option of pi-mcp-adapter; ignored'),
  notifyOnStartupConnect: dropped('pi-mcp-adapter', 'is a display option of pi-mcp-adapter; ignored'),
  toolResultRendering: dropped('pi-mcp-adapter', 'is a display option of pi-mcp-adapter; ignored'),
  collapsedResultLines: dropped('pi-mcp-adapter', 'is a display option of pi-mcp-adapter; ignored'),
  strictDirectToolArguments: dropped(
    'pi-mcp-adapter',
    'is always on: Pi validates arguments against the schema',
  ),
  directToolResultDetails: dropped('pi-mcp-adapter', 'is not applied'),
  warnOnLargeDirectTools: dropped('pi-mcp-adapter', 'is not applied'),
};

/** Top-level keys only the other two know. */
export const TOP_LEVEL_COMPAT: Record<string, CompatKey> = {
  autoEnableCodemode: dropped(
    'Pi',
    'is not applied; Pi activates its `codemode` tool itself when it is on (ToolSearch reaches every MCP tool)',
  ),
  claudePlugins: dropped('pi-mcp-adapter', 'is not applied (Claude plugins are not loaded)'),
};

export interface CompatNote {
  key: string;
  message: string;
  level?: 'warning';
}

/** Applies the tables to a copy of `entry`; returns the rewritten copy and one note per key touched. */
export function applyCompat(
  entry: Record<string, unknown>,
  tables: Array<Record<string, CompatKey>>,
): { entry: Record<string, unknown>; notes: CompatNote[] } {
  const out = { ...entry };
  const notes: CompatNote[] = [];
  for (const [key, value] of Object.entries(entry)) {
    const rule = tables.map((table) => (Object.hasOwn(table, key) ? table[key] : undefined)).find(Boolean);
    if (rule === undefined) continue;
    let done: ReturnType<NonNullable<CompatKey['map']>> = rule.does;
    if (rule.map) done = rule.map(value, out);
    else delete out[key];
    if (typeof done === 'string') notes.push({ key, message: `"${key}" (${rule.from}) ${done}` });
    else if (done) notes.push({ key, message: `"${key}" (${rule.from}) ${done.done}`, level: done.level });
  }
  return { entry: out, notes };
}

/** Every key each of the two accepts, by where it sits (for the table of docs/config.md and its test). */
export const FOREIGN_CONFIG_KEYS = {
  server: {
    'pi-mcp-adapter': [
      'command',
      'args',
      'socket',
      'env',
      'inheritEnv',
      'cwd',
      'url',
      'caFile',
      'headers',
      'requestHeadersCommand',
      'auth',
      'bearerToken',
      'bearerTokenEnv',
      'bearerTokenStore',
      'oauth',
      'lifecycle',
      'idleTimeout',
      'requestTimeoutMs',
      'exposeResources',
      'directTools',
      'toolPrefix',
      'includeTools',
      'excludeTools',
      'searchKeywords',
      'approveTools',
      'debug',
      'trace',
      'httpTransport',
      'pluginDataDir',
      'literalEnv',
      'protocolVersion',
      'tasks',
      'disabled',
    ],
    Pi: [
      'type',
      'command',
      'args',
      'env',
      'cwd',
      'url',
      'headers',
      'oauth',
      'timeout',
      'enabled',
      'exposure',
      'toolExposure',
      'description',
    ],
  },
  oauth: {
    'pi-mcp-adapter': [
      'grantType',
      'clientId',
      'clientSecret',
      'clientMetadataUrl',
      'scope',
      'authorizationParams',
      'redirectUri',
      'clientName',
      'clientUri',
      'logoUri',
      'authServerMetadataUrl',
      'skipIssuerMetadataValidation',
    ],
    Pi: [
      'clientId',
      'clientSecret',
      'callbackPort',
      'callbackUrl',
      'scope',
      'clientName',
      'clientRegistration',
      'authServerMetadataUrl',
    ],
  },
  settings: {
    'pi-mcp-adapter': [
      'toolPrefix',
      'showStatusIcon',
      'mcpFooterStatus',
      'notifyOnStartupConnect',
      'hostConfigDiscovery',
      'ancestorConfigRoots',
      'agentPluginPaths',
      'idleTimeout',
      'requestTimeoutMs',
      'directTools',
      'namespaceProxyTools',
      'strictDirectToolArguments',
      'directToolResultDetails',
      'warnOnLargeDirectTools',
      'scriptMode',
      'jev',
      'toolResultRendering',
      'collapsedResultLines',
      'approveTools',
      'disableProxyTool',
      'freezeDirectTools',
      'autoAuth',
      'sampling',
      'samplingAutoApprove',
      'elicitation',
      'outputGuard',
      'trace',
      'authRequiredMessage',
      'oauthCredentialStore',
      'oauthDir',
    ],
    Pi: [],
  },
  topLevel: {
    'pi-mcp-adapter': ['mcpServers', 'mcp-servers', 'imports', 'settings', 'claudePlugins'],
    Pi: ['mcpServers', 'autoEnableCodemode'],
  },
} as const;
