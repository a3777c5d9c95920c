// The secret values a resolved config holds, for string-level redaction of inspection events. Keys
// alone are not enough: a token can reappear inside an error message, a URL or a stderr line.

import type { ServerDefinition } from '../config/types.ts';

export function secretsOfServers(servers: readonly ServerDefinition[]): string[] {
  const found = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.length > 0) found.add(value);
  };
  for (const server of servers) {
    for (const value of Object.values(server.env ?? {})) add(value);
    for (const value of Object.values(server.headers ?? {})) add(value);
    add(server.bearerToken);
    add(server.oauth?.clientSecret);
  }
  return [...found];
}
