// Values that run a command, as Pi's built-in MCP and pi-mcp-adapter allow: a value of `env`,
// `headers` or `bearerToken` that starts with one `!` is a shell command whose output becomes the
// value when the server connects (never at load: start-up does not wait for `gh auth token`).
// `!!` writes a literal value that starts with `!`.

/** Where a command's output goes. */
export interface CommandValue {
  field: 'env' | 'headers' | 'bearerToken';
  /** The env variable or header name; absent for `bearerToken`. */
  key?: string;
  command: string;
  /** JSON path in the config file, e.g. `mcpServers.github.headers.Authorization`. */
  keyPath: string;
}

export type ValueForm = { kind: 'command'; command: string } | { kind: 'text'; text: string };

export function valueForm(raw: string): ValueForm {
  if (raw.startsWith('!!')) return { kind: 'text', text: raw.slice(1) };
  if (raw.startsWith('!')) return { kind: 'command', command: raw.slice(1) };
  return { kind: 'text', text: raw };
}
