// What a restart of an instance would cut for the other sessions: their calls running on it. The host
// restarts at once when there are none; otherwise it answers with these counts and the session asks
// its user first (docs/shared-host.md, "Restart").

import type { OthersInFlight } from '../ports/host.ts';

/** A client of the host as this count sees it: its attachments and its calls. */
export interface CallerView {
  readonly attachments: ReadonlyMap<number, { readonly instance: object }>;
  readonly calls: ReadonlyMap<
    number,
    { readonly attachment: { readonly instance: object }; running: boolean }
  >;
}

/** The other clients' calls running on `instance`; undefined when there are none. */
export function othersInFlight(
  clients: Iterable<CallerView>,
  asking: CallerView,
  instance: object,
): OthersInFlight | undefined {
  let calls = 0;
  let callers = 0;
  let attached = 0;
  for (const client of clients) {
    if (client === asking) continue;
    if ([...client.attachments.values()].some((a) => a.instance === instance)) attached++;
    let running = 0;
    for (const call of client.calls.values())
      if (call.running && call.attachment.instance === instance) running++;
    calls += running;
    if (running > 0) callers++;
  }
  return calls === 0 ? undefined : { calls, callers, attached };
}
