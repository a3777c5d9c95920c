// The shape of bench/results/results.json.

import type { CallOverheadResult } from './call-overhead.ts';
import type { FiveSessionsResult } from './five-sessions.ts';
import type { ActorHeap, NpxMemory } from './memory.ts';
import type { QuickResult } from './quick.ts';
import type { ReliabilityResult } from './reliability.ts';
import type { SearchResult } from './search.ts';
import type { ColdStartResult, SideBySideResult } from './side-by-side.ts';
import type { StartupResult } from './startup.ts';
import type { measure } from './tokens.ts';

export type TokenRow = ReturnType<typeof measure>;

export interface TargetCheck {
  target: string;
  measured: string;
  reference: string;
  met: boolean | null;
}

export interface BenchResults {
  meta: {
    date: string;
    command: string;
    node: string;
    pi: string;
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    loadAverageAtStart: number[];
    piRuns: number;
    packages: Record<string, unknown>;
    sectionMs: Partial<
      Record<
        | 'provision'
        | 'calls'
        | 'startup'
        | 'search'
        | 'tokens'
        | 'memory'
        | 'pi'
        | 'reliability'
        | 'quick'
        | 'shared',
        number
      >
    >;
    wallMs: number;
  };
  callOverhead?: CallOverheadResult;
  startup?: StartupResult;
  search?: SearchResult;
  tokens?: { five: TokenRow; all23: TokenRow; synthetic100x50: TokenRow };
  memory?: { heap: ActorHeap; npx?: NpxMemory };
  /** The scripted model answers at once. */
  sideBySide?: SideBySideResult;
  /** The scripted model thinks 1.5 s before each answer, as real ones do. */
  sideBySideThinking?: SideBySideResult;
  coldStart?: ColdStartResult;
  reliability?: ReliabilityResult;
  quick?: QuickResult;
  /** Five Pi sessions at once: servers in each session, in Pi's built-in, in the shared host. */
  fiveSessions?: FiveSessionsResult;
  targets?: TargetCheck[];
  errors: Record<string, string>;
}
