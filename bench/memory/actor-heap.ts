// Heap per idle server actor, run in its own process: node --expose-gc --import tsx bench/memory/actor-heap.ts [count]
// Spawns `count` server actors (lazy, never connected, each with its own definition and the shared
// cached catalog a session would give it), and as the reference the same number of minimal XState
// actors (one state, empty context). Prints one JSON line: bytes per actor for each, median of rounds.

import { type AnyActorRef, createActor, createMachine } from 'xstate';
import { serverLogic } from '../../src/actors/server-actor.ts';
import type { Connector } from '../../src/machines/server-types.ts';
import { FIVE_SERVERS, readCatalogs, stdioDefinition } from '../support/catalogs.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const count = Number(process.argv[2] ?? 1_000);
const rounds = 5;
const connector: Connector = async () => {
  throw new Error('benchmark: never connects');
};
const catalog = readCatalogs(FIVE_SERVERS)[0]!;
const knownCatalog = { tools: catalog.tools, resources: catalog.resources ?? [] };
const minimal = createMachine({ id: 'minimal', initial: 'idle', states: { idle: {} } });

function settle(): number {
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage().heapUsed;
}

function perActor(spawn: (i: number) => AnyActorRef): number {
  const before = settle();
  const actors = Array.from({ length: count }, (_, i) => spawn(i));
  const after = settle();
  const bytes = (after - before) / count;
  for (const a of actors) a.stop();
  actors.length = 0;
  return bytes;
}

const definitions = Array.from({ length: count }, (_, i) => stdioDefinition(`server-${i}`));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const server: number[] = [];
const reference: number[] = [];
for (let r = 0; r < rounds + 1; r++) {
  const s = perActor((i) =>
    createActor(serverLogic, {
      input: { definition: definitions[i]!, generation: 1, connector, knownCatalog },
    }).start(),
  );
  const m = perActor(() => createActor(minimal).start());
  if (r === 0) continue; // warm-up: code and hidden classes
  server.push(s);
  reference.push(m);
}
process.stdout.write(
  `${JSON.stringify({ count, rounds, serverActorBytes: Math.round(median(server)), minimalActorBytes: Math.round(median(reference)), server: server.map(Math.round), minimal: reference.map(Math.round) })}\n`,
);
