// Resolved config objects for tests and benchmarks, as the loader would produce them: every field set,
// defaults from src/config/defaults.ts, so a test states only what it is about.

import { defaultSettings, SERVER_DEFAULTS } from '../../src/config/defaults.ts';
import type { LoadedConfig, ServerDefinition, Settings } from '../../src/config/types.ts';

export function definition(overrides: Partial<ServerDefinition> = {}): ServerDefinition {
  const name = overrides.name ?? 'server';
  return {
    name,
    source: { file: '/home/u/.pi/agent/mcp.json', kind: 'user', keyPath: `mcpServers.${name}` },
    transport: 'stdio',
    args: [],
    env: {},
    headers: {},
    lifecycle: SERVER_DEFAULTS.lifecycle,
    idleTimeoutMs: SERVER_DEFAULTS.idleTimeoutMinutes * 60_000,
    startupTimeoutMs: SERVER_DEFAULTS.startupTimeoutMs,
    requestTimeoutMs: SERVER_DEFAULTS.requestTimeoutMs,
    healthCheckMs: SERVER_DEFAULTS.healthCheckMs,
    exposeResources: false,
    directTools: SERVER_DEFAULTS.directTools,
    excludeTools: [],
    exposure: SERVER_DEFAULTS.exposure,
    toolExposure: [],
    debug: SERVER_DEFAULTS.debug,
    ...overrides,
  };
}

export function loadedConfig(servers: ServerDefinition[], settings: Partial<Settings> = {}): LoadedConfig {
  return {
    servers,
    skipped: [],
    diagnostics: [],
    files: [],
    settings: { ...defaultSettings(), ...settings },
  };
}
