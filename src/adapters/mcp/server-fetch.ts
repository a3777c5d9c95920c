// The fetch every HTTP request to one server goes through (MCP requests and that server's OAuth
// discovery, registration and token requests): the private CA of `caFile`, then the headers of
// `requestHeadersCommand`, when they are set.

import { readFileSync } from 'node:fs';
import type { FetchLike } from '@modelcontextprotocol/client';
import type { ServerDefinition } from '../../config/types.ts';
import { ConnectError } from '../../ports/mcp.ts';
import { caFetch } from './ca-fetch.ts';
import { originOf } from './errors.ts';
import { headersCommandFetch } from './request-headers-command.ts';

/** `learnSecrets`: where secrets learned on the way (the headers command's values) go. */
export function serverFetch(def: ServerDefinition, learnSecrets: (values: string[]) => void): FetchLike {
  let base: FetchLike = fetch;
  if (def.caFile !== undefined && def.url?.startsWith('https:')) {
    let ca: string;
    try {
      ca = readFileSync(def.caFile, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'read failed';
      throw new ConnectError('config', `Server "${def.name}": cannot read caFile ${def.caFile} (${code})`);
    }
    base = caFetch(ca, originOf(def.url), base);
  }
  return def.requestHeadersCommand
    ? headersCommandFetch(def.requestHeadersCommand, base, learnSecrets)
    : base;
}
