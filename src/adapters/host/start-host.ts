// Finds this build's shared host, or starts it: detached, in its own process group, outliving the
// session that started it. Two sessions starting it at once both end up on the one host that won the
// socket (src/host/exclusive-listen.ts); the loser exits by itself. Before anything is sent, the host's
// folder, key and socket are checked (src/host/host-place.ts) and the host proves the key
// (./host-client.ts); a host that is silent, foreign or of another build is never waited for.

import { existsSync } from 'node:fs';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import { unrefClock } from '../../actors/unref-clock.ts';
import { buildIdentity } from '../../host/build-identity.ts';
import { type HostPlace, prepareHostPlace } from '../../host/host-place.ts';
import { hostSocketPath } from '../../host/paths.ts';
import { checkSocket, HostPlaceError } from '../../host/private-place.ts';
import type { InspectionRelay } from '../../inspect/deferred.ts';
import {
  HOST_START_DEADLINE_MS,
  type HostStartEvent,
  hostStartMachine,
  type OpenOutcome,
} from '../../machines/host-start.machine.ts';
import type { Surface } from '../../ports/surface-words.ts';
import { HostClient, HostUnavailable } from './host-client.ts';
import { defaultLabel } from './line-ahead.ts';
import { hostComingUp, spawnHost } from './spawn-host.ts';

export { type StartedHost, spawnHost, startHostSoon } from './spawn-host.ts';

export interface HostAddress {
  agentDir: string;
  /** The build whose host is meant (default: this one's, src/host/build-identity.ts). */
  build?: string;
  /** Shown by `pi-mcp-actors host` for this client. */
  label?: string;
  /** The session's inspection: while it is on, the host sends it the events of its instance actors. */
  inspection?: InspectionRelay;
  /** Whose words the host's errors are given in (the CLI names its own sign-in command). */
  surface?: Surface;
}

export function socketOf(address: HostAddress): string {
  return hostSocketPath(address.agentDir, address.build ?? buildIdentity());
}

/** A client of the running host of this build, without starting one. */
export function openHost(address: HostAddress): Promise<HostClient> {
  return openAt(address, placeOf(address));
}

/**
 * A client of the running host, starting one when none is there: the `hostStart` chart
 * (src/machines/host-start.machine.ts) opens, starts the host (or follows the one this process started
 * moments ago, startHostSoon) and opens again the moment it says it listens or exits.
 */
export async function attachToHost(address: HostAddress): Promise<HostClient> {
  const place = placeOf(address);
  const build = buildOf(address);
  const reaching = createActor(
    hostStartMachine.provide({
      actors: {
        open: fromPromise<OpenOutcome<unknown>>(() =>
          openAt(address, place).then(
            (line): OpenOutcome<unknown> => {
              // Opened after the deadline ended the wait: nobody takes this line.
              if (reaching.getSnapshot().status === 'done') line.close();
              return { line };
            },
            (error: unknown): OpenOutcome<unknown> => {
              if (isAbsent(error)) return { absent: true };
              throw error;
            },
          ),
        ),
        hostProcess: fromCallback<HostStartEvent>(({ sendBack }) =>
          (hostComingUp(place.socketPath) ?? spawnHost(address.agentDir, build)).follow(sendBack),
        ),
      },
    }),
    { clock: unrefClock },
  ).start();
  const { value, context } = await waitFor(reaching, (s) => s.status === 'done', { timeout: Infinity });
  if (value === 'up') return context.line as HostClient;
  const failure = context.failure;
  if (failure?.why === 'error') throw failure.error;
  throw new HostUnavailable(
    failure?.why === 'exited'
      ? `the shared host could not start (it exited with code ${failure.code})`
      : `no shared host answered within ${HOST_START_DEADLINE_MS / 1000} s of starting one`,
    'absent',
  );
}

function buildOf(address: HostAddress): string {
  return address.build ?? buildIdentity();
}

/** The host's folder, key and socket path, checked: a place that is not the user's alone is refused. */
function placeOf(address: HostAddress): HostPlace {
  // Not made here: a session whose agent dir was deleted must not bring it back.
  if (!existsSync(address.agentDir))
    throw new HostUnavailable(`the agent dir ${address.agentDir} does not exist`, 'no-agent-dir');
  try {
    return prepareHostPlace(address.agentDir, buildOf(address));
  } catch (error) {
    if (error instanceof HostPlaceError) throw new HostUnavailable(error.message, 'refused');
    throw error;
  }
}

function openAt(address: HostAddress, place: HostPlace): Promise<HostClient> {
  try {
    // Checked before every connect: a socket may have appeared since the place was checked.
    checkSocket(place.socketPath);
  } catch (error) {
    if (error instanceof HostPlaceError) return Promise.reject(new HostUnavailable(error.message, 'refused'));
    throw error;
  }
  return HostClient.open(place.socketPath, {
    build: buildOf(address),
    key: place.key,
    label: address.label ?? defaultLabel(),
    ...(address.inspection ? { inspection: address.inspection } : {}),
    ...(address.surface ? { surface: address.surface } : {}),
  });
}

function isAbsent(error: unknown): boolean {
  return error instanceof HostUnavailable && error.why === 'absent';
}
