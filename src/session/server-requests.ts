// Which of the host's answers a server may use, by the settings: `sampling: false` and
// `elicitation: false` leave the capability undeclared (as pi-mcp-adapter does), so servers never ask;
// `roots` says which folders a server is told about (none by default, as pi-mcp-adapter).

import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerDefinition, Settings } from '../config/types.ts';
import type { HostRequests } from '../ports/mcp.ts';

export function allowedRequests(
  host: HostRequests,
  settings: Settings,
  definition?: Pick<ServerDefinition, 'roots'>,
): HostRequests {
  const { sample, elicit, roots, ...rest } = host;
  const configured = definition?.roots ?? false;
  const folders = Array.isArray(configured) ? configured : undefined;
  return {
    ...rest,
    ...(sample && settings.sampling ? { sample } : {}),
    ...(elicit && settings.elicitation ? { elicit } : {}),
    ...(folders
      ? {
          roots: () => folders.map((folder) => ({ uri: pathToFileURL(folder).href, name: basename(folder) })),
        }
      : roots && configured === true
        ? { roots }
        : {}),
  };
}

/** The client capabilities a server is declared (`hostAnswers`: the host answers elicitation, sampling
 * and its working directory as roots, as Pi and the CLI do): the part of a listing's identity a server
 * may vary its tools by (server-everything adds tools per capability). Sorted, as the session records them. */
export function declaredCapabilities(
  definition: Pick<ServerDefinition, 'roots'>,
  settings: Pick<Settings, 'sampling' | 'elicitation'>,
  hostAnswers = true,
): string[] {
  const roots = definition.roots ?? false;
  const names: string[] = [];
  if (hostAnswers && settings.elicitation) names.push('elicitation');
  if (Array.isArray(roots) || (hostAnswers && roots)) names.push('roots');
  if (hostAnswers && settings.sampling) names.push('sampling');
  return names;
}
