// A prompt whose tool call runs long, aborted (Esc) once the call has reported progress: what Pi did.

import { expect } from 'vitest';
import type { PiRecord, PiRpc } from './run-pi.ts';

export interface AbortedCall {
  /** The first progress update of the call. */
  update: PiRecord;
  /** Pi's `agent_settled` after the abort. */
  settled: PiRecord;
  /** The call's `tool_execution_end`, if Pi sent one. */
  end: PiRecord | undefined;
  /** From the abort to Pi settled. */
  abortMs: number;
}

export async function abortLongCall(rpc: PiRpc, message: string, toolCallId: string): Promise<AbortedCall> {
  const since = rpc.records.length;
  expect((await rpc.send({ type: 'prompt', message })).success).toBe(true);
  const update = await rpc.waitForRecord(
    (r) => r.type === 'tool_execution_update' && r.toolCallId === toolCallId,
    { since, timeoutMs: 60_000 },
  );
  const abortedAt = Date.now();
  await rpc.send({ type: 'abort' });
  const settled = await rpc.waitForRecord((r) => r.type === 'agent_settled', { since, timeoutMs: 30_000 });
  const end = rpc.records
    .slice(since)
    .find((r) => r.type === 'tool_execution_end' && r.toolCallId === toolCallId);
  return { update, settled, end, abortMs: Date.now() - abortedAt };
}
