import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { serverLogic } from '../../../src/actors/server-actor.ts';
import { createDeferredInspection, createInspection } from '../../../src/inspect/inspector.ts';
import { SecretValues } from '../../../src/redact/index.ts';
import { createScriptedConnector } from '../../fixtures/inspect/scripted-connector.ts';
import { secretServerDefinition } from '../../fixtures/inspect/secret-config.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'inspect-deferred-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const startServer = (inspect: (event: any) => void) =>
  createActor(serverLogic, {
    input: {
      definition: secretServerDefinition(),
      generation: 1,
      connector: createScriptedConnector().connector,
    },
    systemId: 'server:late',
    inspect,
  }).start();

const linesOf = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('createDeferredInspection', () => {
  it('holds events until inspection is attached, then delivers them and everything after', async () => {
    const deferred = createDeferredInspection();
    const actor = startServer(deferred.inspect);
    const file = join(dir, 'events.jsonl');
    deferred.attach(
      createInspection({ kind: 'jsonl', file }, { known: new SecretValues(), secrets: () => [] }),
    );
    actor.send({ type: 'CONNECT' });
    actor.stop();
    await deferred.dispose();

    const events = linesOf(file);
    expect(events[0]).toMatchObject({ type: '@xstate.actor', systemId: 'server:late' });
    const states = events.filter((e) => e.type === '@xstate.snapshot' && e.sessionId === actor.sessionId);
    expect(states.map((e) => e.snapshot.value).slice(0, 2)).toEqual(['init', { connecting: 'opening' }]);
  });

  it('drops what it held when inspection is off, and the first decision stays', async () => {
    const deferred = createDeferredInspection();
    const actor = startServer(deferred.inspect);
    deferred.attach(undefined);
    const file = join(dir, 'never.jsonl');
    const late = createInspection({ kind: 'jsonl', file }, { known: new SecretValues(), secrets: () => [] });
    deferred.attach(late);
    actor.send({ type: 'CONNECT' });
    actor.stop();
    await deferred.dispose();
    await late.dispose();
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it("relays another process's events while inspection is on, redacted again with this runtime's secrets", async () => {
    const deferred = createDeferredInspection();
    const snapshot = (tail: string) => ({
      type: '@xstate.snapshot',
      sessionId: 'host:4242:x:0',
      snapshot: { value: 'connected', context: { stderrTail: tail } },
    });
    expect(deferred.on()).toBe(false);
    deferred.relay(snapshot('before the decision: dropped'));
    const file = join(dir, 'relayed.jsonl');
    deferred.attach(
      createInspection(
        { kind: 'jsonl', file },
        { known: new SecretValues(), secrets: () => ['relayed-secret-0a1b2c3d'] },
      ),
    );
    expect(deferred.on()).toBe(true);
    deferred.relay(snapshot('TOKEN=relayed-secret-0a1b2c3d'));
    await deferred.dispose();
    expect(deferred.on()).toBe(false);
    deferred.relay(snapshot('after dispose: dropped'));

    expect(linesOf(file)).toEqual([
      {
        type: '@xstate.snapshot',
        sessionId: 'host:4242:x:0',
        snapshot: { value: 'connected', context: { stderrTail: 'TOKEN=***' } },
      },
    ]);
  });
});
