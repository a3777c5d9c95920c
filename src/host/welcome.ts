// The session's check of a host's welcome: this build's host, proving the user's key. Shared by the
// line a session greets ahead of use (src/adapters/host/line-ahead.ts) and its client (host-client.ts).

import type { LinkFailure } from '../machines/host-link.machine.ts';
import { hostProof, proofMatches } from './host-key.ts';
import { WIRE_PROTOCOL } from './protocol.ts';

/**
 * Why the first answer to a hello is not this build's host proving the key, or undefined when it is.
 * Anything this build does not know (an older host's welcome, missing fields) is "not our host".
 */
export function welcomeProblem(
  message: unknown,
  { build, key, nonce }: { build: string; key: Buffer; nonce: string },
): { text: string; why: LinkFailure } | undefined {
  const m = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
  if (m.t === 'other-build' || (m.t === 'welcome' && (m.protocol !== WIRE_PROTOCOL || m.build !== build))) {
    const of = typeof m.build === 'string' ? `build ${m.build}` : `version ${String(m.version)}`;
    return {
      text: `is another build's (${of}, protocol ${String(m.protocol ?? 1)}; this is ${build}, protocol ${WIRE_PROTOCOL}): not used`,
      why: 'other-build',
    };
  }
  if (
    m.t !== 'welcome' ||
    typeof m.pid !== 'number' ||
    typeof m.nonce !== 'string' ||
    typeof m.version !== 'string'
  )
    return {
      text: 'answered with something that is not a shared host of this build: not used',
      why: 'foreign',
    };
  if (!proofMatches(m.proof, hostProof(key, nonce, m.nonce)))
    return {
      text: "answered without proving the user's host key: not used (nothing was sent to it)",
      why: 'foreign',
    };
  return undefined;
}
