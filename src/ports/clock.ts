// The clock every timer of ours runs on: XState's own clock type, so a test gives SimulatedClock and
// production the unref()'d timers of src/actors/unref-clock.ts.

import type { ActorOptions, AnyActorLogic } from 'xstate';

export type Clock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;
