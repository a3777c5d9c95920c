// 2026-07-28 servers send list changes only on a `subscriptions/listen` stream the client opened (the
// 2025 protocol sends them unasked). The stream feeds the same notification handlers, so the owner sees
// the same `tools-changed` / `resources-changed` / `prompts-changed` events in either era. A stream
// the server drops is opened again (after a pause, a few times in a row at most); one we or the
// server closed on purpose is not.

import type { Client, SubscriptionFilter } from '@modelcontextprotocol/client';

const REOPEN_DELAY_MS = 1_000;
const MAX_REOPENS_IN_A_ROW = 5;

/** Opens the listen stream when the connection is modern and the server announces list changes. */
export function listenForChanges(client: Client, isRetired: () => boolean): void {
  if (client.getProtocolEra() !== 'modern') return;
  const capabilities = (client.getServerCapabilities() ?? {}) as Record<string, { listChanged?: boolean }>;
  const filter: SubscriptionFilter = {};
  if (capabilities.tools?.listChanged) filter.toolsListChanged = true;
  if (capabilities.resources?.listChanged) filter.resourcesListChanged = true;
  if (capabilities.prompts?.listChanged) filter.promptsListChanged = true;
  if (Object.keys(filter).length === 0) return;
  let dropsInARow = 0;
  const open = async (): Promise<void> => {
    if (isRetired()) return;
    try {
      const subscription = await client.listen(filter);
      dropsInARow = 0;
      if ((await subscription.closed) !== 'remote') return;
    } catch {
      // Refused or not reachable: try again below like a dropped stream.
    }
    if (isRetired() || !client.transport || ++dropsInARow > MAX_REOPENS_IN_A_ROW) return;
    setTimeout(() => void open(), REOPEN_DELAY_MS).unref();
  };
  void open();
}
