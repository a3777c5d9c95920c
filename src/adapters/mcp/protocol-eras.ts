// `protocolVersion: "auto"` asks each server which protocol era it speaks (`server/discover`) before
// connecting. The answer is remembered per server entry (its cache identity, like the tool cache), so
// later connects skip the probe: a modern server's discover result is adopted with no round trip, a
// legacy one goes straight to `initialize`. A legacy answer is trusted for a week (a server may
// upgrade; a stale legacy answer still works, it just speaks the older protocol), a modern one until it
// fails. The file is a hint: lost or unreadable, the next connect probes again.

import * as fs from 'node:fs';
import { join } from 'node:path';
import type { ServerDefinition } from '../../config/types.ts';
import { replaceAtomically } from '../../fs/atomic-file.ts';
import { isPlainObject } from '../../plain-object.ts';

export const PROTOCOL_ERAS_FILE_NAME = 'mcp-protocol-eras.json';
const VERSION = 1;
/** How long a "legacy" answer is trusted before `auto` asks the server again. */
export const LEGACY_VERDICT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

export type EraVerdict =
  | { era: 'modern'; discover: Record<string, unknown>; at: number }
  | { era: 'legacy'; at: number };

export interface ProtocolEraStore {
  get(def: ServerDefinition): EraVerdict | undefined;
  set(def: ServerDefinition, verdict: EraVerdict): Promise<void>;
  forget(def: ServerDefinition): Promise<void>;
}

export function defaultProtocolErasFile(agentDir: string): string {
  return join(agentDir, PROTOCOL_ERAS_FILE_NAME);
}

/** The entry's identity: the cache's config hash, else (definitions built in code) what it runs. */
function keyOf(def: ServerDefinition): string {
  return def.configHash ?? JSON.stringify([def.name, def.url ?? def.socket ?? def.command, def.args]);
}

function usable(verdict: EraVerdict | undefined, now: number): EraVerdict | undefined {
  if (verdict?.era === 'legacy' && now - verdict.at > LEGACY_VERDICT_MAX_AGE_MS) return undefined;
  return verdict;
}

/** Verdicts of this process only (the default connector, tests). */
export function memoryProtocolEraStore(now: () => number = Date.now): ProtocolEraStore {
  const verdicts = new Map<string, EraVerdict>();
  return {
    get: (def) => usable(verdicts.get(keyOf(def)), now()),
    set: async (def, verdict) => {
      verdicts.set(keyOf(def), verdict);
    },
    forget: async (def) => {
      verdicts.delete(keyOf(def));
    },
  };
}

const fileStores = new Map<string, ProtocolEraStore>();

/** The store kept in `file` (one per file in this process). Never throws. */
export function fileProtocolEraStore(file: string, now: () => number = Date.now): ProtocolEraStore {
  let store = fileStores.get(file);
  if (store) return store;
  let writing: Promise<void> = Promise.resolve();
  const update = (change: (entries: Record<string, EraVerdict>) => void): Promise<void> => {
    writing = writing.then(async () => {
      const entries = readEntries(file);
      change(entries);
      await fs.promises.mkdir(join(file, '..'), { recursive: true });
      await replaceAtomically(file, `${JSON.stringify({ version: VERSION, servers: entries })}\n`);
    });
    writing = writing.catch(() => {});
    return writing;
  };
  store = {
    get: (def) => usable(readEntries(file)[keyOf(def)], now()),
    set: (def, verdict) =>
      update((entries) => {
        entries[keyOf(def)] = verdict;
      }),
    forget: (def) =>
      update((entries) => {
        delete entries[keyOf(def)];
      }),
  };
  fileStores.set(file, store);
  return store;
}

function readEntries(file: string): Record<string, EraVerdict> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
  if (!isPlainObject(parsed) || parsed.version !== VERSION || !isPlainObject(parsed.servers)) return {};
  const entries: Record<string, EraVerdict> = {};
  for (const [key, value] of Object.entries(parsed.servers)) {
    if (!isPlainObject(value) || typeof value.at !== 'number') continue;
    if (value.era === 'legacy') entries[key] = { era: 'legacy', at: value.at };
    else if (value.era === 'modern' && isPlainObject(value.discover))
      entries[key] = { era: 'modern', discover: value.discover, at: value.at };
  }
  return entries;
}
