// 2026-07-28 multi-round-trip for tools/call, driven here instead of by the SDK's auto-fulfilment.
// The SDK answers a call's input requests from its response handler, outside the call's own async
// context, so a shared host serving several sessions could not tell whose call asked (see
// src/host/instance.ts runFor()). Driven inside the call, each answer is known to be that call's.
// The rules are the SDK's: answer every request of a round, resend the call with the answers and a
// byte-exact echo of requestState, at most MAX_ROUNDS rounds, a pause before a round with no question.

import { CallError } from '../../ports/call-error.ts';

/** Answers one input request of the server (elicitation, sampling, roots); undefined when it cannot. */
export type AnswerInput = (
  request: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<Record<string, unknown> | undefined>;

/** As the SDK's driver: a server that keeps asking is stopped after this many rounds. */
const MAX_ROUNDS = 10;
/** As the SDK's driver: a round that only carries requestState is resent after this pause. */
const STATE_ONLY_PACING_MS = 250;

export interface InputRequired {
  resultType: 'input_required';
  inputRequests?: Record<string, unknown>;
  requestState?: string;
}

export function isInputRequired(value: unknown): value is InputRequired {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { resultType?: unknown }).resultType === 'input_required'
  );
}

/** What a call is told when the server asks for something this session does not answer. */
export function unanswerable(what: string, method: string): CallError {
  return new CallError(
    'unsupported',
    `${what}: the server asks for ${method}, which this session cannot answer`,
  );
}

/**
 * Sends `params`, answers each `input_required` round with `answer` and sends again, until the server
 * gives its result.
 */
export async function withInputRounds<R>(
  what: string,
  params: Record<string, unknown>,
  send: (params: Record<string, unknown>) => Promise<R | InputRequired>,
  answer: AnswerInput,
  signal: AbortSignal | undefined,
): Promise<R> {
  let result = await send(params);
  for (let round = 1; isInputRequired(result); round++) {
    if (round > MAX_ROUNDS)
      throw new CallError('protocol', `${what}: the server still asked for input after ${MAX_ROUNDS} rounds`);
    const asked = Object.entries(result.inputRequests ?? {});
    if (asked.length === 0) await pause(STATE_ONLY_PACING_MS, signal);
    const responses: Record<string, unknown> = {};
    const answering = signal ?? new AbortController().signal;
    for (const [key, request] of asked) {
      const method = isRequest(request) ? request.method : 'input';
      const response = isRequest(request) ? await answer(request, answering) : undefined;
      if (response === undefined) throw unanswerable(what, method);
      responses[key] = response;
    }
    result = await send({
      ...params,
      ...(asked.length > 0 ? { inputResponses: responses } : {}),
      ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
    });
  }
  return result;
}

function isRequest(value: unknown): value is { method: string; params?: unknown } {
  return (
    typeof value === 'object' && value !== null && typeof (value as { method?: unknown }).method === 'string'
  );
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', stop);
      resolve();
    }
    function stop() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', stop, { once: true });
  });
}
