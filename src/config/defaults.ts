// Every default of the configuration, in one place. The loader applies them once; the schemas and
// docs/config.md quote them from here.

import type { Exposure, Lifecycle, ProtocolVersionMode, Settings, ShareScope, ToolPrefix } from './types.ts';

export const MINUTE_MS = 60_000;

export const SERVER_DEFAULTS = {
  enabled: true,
  lifecycle: 'lazy' as Lifecycle,
  /** Minutes; applies to lazy servers. Eager and keep-alive servers default to 0 (never). */
  idleTimeoutMinutes: 10,
  startupTimeoutMs: 30_000,
  requestTimeoutMs: 60_000,
  /** Eager and keep-alive servers are pinged this often while connected; 0 = never. */
  healthCheckMs: 30_000,
  exposeResources: true,
  /**
   * stdio servers get this process's whole environment plus `env`, as under pi-mcp-adapter and Pi's
   * built-in MCP; `inheritEnv: false` = the MCP SDK's safe default set plus `env`.
   */
  inheritEnv: true,
  directTools: false as boolean | string[],
  exposure: 'deferred' as Exposure,
  share: 'project' as ShareScope,
  debug: false,
} as const;

export const SETTINGS_DEFAULTS = {
  toolPrefix: 'server' as ToolPrefix,
  protocolVersion: 'auto' as ProtocolVersionMode,
  idleTimeoutMinutes: 10,
  toonEncode: false as boolean | string[],
  captureStats: false as const,
  proxyTool: false,
  outputLimitBytes: 50 * 1024,
  approveTools: false as boolean | string[],
  sampling: true,
  samplingAutoApprove: false,
  elicitation: true,
  // pi-mcp-adapter sends no roots; servers that replace their configured folders with the roots keep them.
  roots: false as boolean | string[],
  // One warm copy of a server for every session (issue 26); false runs every server in the session.
  sharedHost: true,
} as const;

/** pi-mcp-adapter's trace bounds. */
export const TRACE_DEFAULTS = {
  enabled: false,
  maxBytes: 256 * 1024,
  maxEvents: 10_000,
} as const;

/** `captureStats: true` means this. `path` is relative to the agent dir. */
export const CAPTURE_STATS_DEFAULTS = {
  fileName: 'mcp-stats.json',
  flushDelayMs: 500,
} as const;

export const OAUTH_DEFAULTS = {
  grantType: 'authorization_code',
  signingAlgorithm: 'RS256',
} as const;

export const USER_CONFIG_FILE = 'mcp.json';
export const PROJECT_CONFIG_FILES = ['.mcp.json', '.pi/mcp.json'] as const;
export const LOG_FILE = 'pi-mcp-actors.log';
export const CACHE_FILE_NAME = 'mcp-cache.json';
/** How long a server's cached tool list is trusted without the server confirming it. */
export const DEFAULT_CACHE_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
export const LOG_MAX_BYTES = 5 * 1024 * 1024;

export function defaultSettings(): Settings {
  return {
    toolPrefix: SETTINGS_DEFAULTS.toolPrefix,
    protocolVersion: SETTINGS_DEFAULTS.protocolVersion,
    idleTimeoutMs: SETTINGS_DEFAULTS.idleTimeoutMinutes * MINUTE_MS,
    toonEncode: SETTINGS_DEFAULTS.toonEncode,
    captureStats: SETTINGS_DEFAULTS.captureStats,
    proxyTool: SETTINGS_DEFAULTS.proxyTool,
    outputLimitBytes: SETTINGS_DEFAULTS.outputLimitBytes,
    directTools: SERVER_DEFAULTS.directTools as boolean,
    requestTimeoutMs: SERVER_DEFAULTS.requestTimeoutMs,
    approveTools: SETTINGS_DEFAULTS.approveTools,
    sampling: SETTINGS_DEFAULTS.sampling,
    samplingAutoApprove: SETTINGS_DEFAULTS.samplingAutoApprove,
    elicitation: SETTINGS_DEFAULTS.elicitation,
    roots: SETTINGS_DEFAULTS.roots,
    sharedHost: SETTINGS_DEFAULTS.sharedHost,
    trace: {
      enabled: TRACE_DEFAULTS.enabled,
      maxBytes: TRACE_DEFAULTS.maxBytes,
      maxEvents: TRACE_DEFAULTS.maxEvents,
    },
  };
}
