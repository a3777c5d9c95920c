// A config full of secrets, run through a real server actor (the production server logic with a
// scripted Connector), inspected to a loopback WebSocket receiver and to a JSONL file at once. The raw
// bytes of both must contain none of the secrets, while still describing the actor's whole journey.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer } from 'ws';
import { createActor, SimulatedClock, waitFor } from 'xstate';
import { serverLogic } from '../../../src/actors/server-actor.ts';
import { createInspection, type Inspection } from '../../../src/inspect/inspector.ts';
import { ConnectError } from '../../../src/ports/mcp.ts';
import { SecretValues, secretsOfDefinition } from '../../../src/redact/index.ts';
import { createFakeConnection, createScriptedConnector } from '../../fixtures/inspect/scripted-connector.ts';
import { SECRET_VALUES, SECRETS, secretServerDefinition } from '../../fixtures/inspect/secret-config.ts';

let dir: string;
let receiver: WebSocketServer;
let frames: Buffer[];
const inspections: Inspection[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inspect-redaction-'));
  frames = [];
  receiver = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  receiver.on('connection', (socket) =>
    socket.on('message', (data) => frames.push(Buffer.from(data as Buffer))),
  );
  await new Promise<void>((resolve) => receiver.once('listening', () => resolve()));
});

afterEach(async () => {
  await Promise.all(inspections.splice(0).map((inspection) => inspection.dispose()));
  for (const client of receiver.clients) client.terminate();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function parsedFrames(): Array<Record<string, any>> {
  return frames.map((frame) => JSON.parse(frame.toString('utf8')));
}

describe('inspection of a server configured with secrets', () => {
  it('sends and writes the whole journey without a single secret', async () => {
    const definition = secretServerDefinition('vault');
    const file = join(dir, 'events.jsonl');
    const url = `ws://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
    const secrets = () => [definition].flatMap(secretsOfDefinition);
    const overSocket = createInspection({ kind: 'websocket', url }, { known: new SecretValues(), secrets });
    const toFile = createInspection({ kind: 'jsonl', file }, { known: new SecretValues(), secrets });
    inspections.push(overSocket, toFile);

    const scripted = createScriptedConnector();
    const actor = createActor(serverLogic, {
      input: { definition, generation: 1, connector: scripted.connector },
      systemId: 'server:vault',
      clock: new SimulatedClock(),
      inspect: (event) => {
        overSocket.inspect(event);
        toFile.inspect(event);
      },
    }).start();

    actor.send({ type: 'CONNECT' });
    (await scripted.nextAttempt()).reject(
      new ConnectError('auth', `401 from server: Bearer ${SECRETS.bearerToken} rejected`, {
        stderrTail: `GITHUB_TOKEN=${SECRETS.envToken} DB_PASSWORD=${SECRETS.envPassword}`,
        status: 401,
      }),
    );
    await waitFor(actor, (s) => s.matches('needsAuth'));

    actor.send({ type: 'AUTHENTICATED' });
    const connection = createFakeConnection();
    (await scripted.nextAttempt()).resolve(connection);
    await waitFor(actor, (s) => s.matches('connected'));

    connection.report({ type: 'stderr', line: `sending cookie ${SECRETS.headerCookie}` });
    connection.report({ type: 'closed', error: `reset while sending X-Api-Key ${SECRETS.headerApiKey}` });
    await waitFor(actor, (s) => s.matches('backoff'));
    actor.stop();

    // The receiver has seen the actor stop: everything before it has been sent.
    await vi.waitFor(() => {
      const stopped = parsedFrames().some(
        (event) =>
          event.type === '@xstate.snapshot' &&
          event.event?.type === 'xstate.stop' &&
          event.sessionId === actor.sessionId,
      );
      expect(stopped).toBe(true);
    });
    await toFile.dispose();
    await overSocket.dispose();

    const jsonl = readFileSync(file);
    const socketBytes = Buffer.concat(frames);
    for (const secret of SECRET_VALUES) {
      expect(jsonl.includes(secret), `JSONL contains ${secret}`).toBe(false);
      expect(socketBytes.includes(secret), `WebSocket frames contain ${secret}`).toBe(false);
    }

    // Not vacuous: both outputs carry the real actor's journey, with names kept and values hidden.
    const lines = jsonl
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    for (const events of [lines, parsedFrames()]) {
      const registration = events.find((e) => e.type === '@xstate.actor' && e.sessionId === actor.sessionId);
      expect(registration).toMatchObject({ name: 'server', systemId: 'server:vault' });
      const states = events
        .filter((e) => e.type === '@xstate.snapshot' && e.sessionId === actor.sessionId)
        .map((e) =>
          typeof e.snapshot.value === 'string' ? e.snapshot.value : Object.keys(e.snapshot.value)[0],
        );
      expect(states).toEqual(
        expect.arrayContaining(['init', 'connecting', 'needsAuth', 'connected', 'backoff']),
      );
      const text = JSON.stringify(events);
      expect(text).toContain('"GITHUB_TOKEN":"***"');
      expect(text).toContain('"X-Api-Key":"***"');
      expect(text).toContain('"bearerToken":"***"');
      expect(text).toContain('"clientSecret":"***"');
      expect(text).toContain('[connection stdio, pid 4242, 1 tools]');
      expect(text).toContain('401 from server: Bearer ***');
    }
  });
});

describe('inspection sinks', () => {
  it('reports an unwritable JSONL file once and never throws', async () => {
    const blocker = join(dir, 'not-a-dir');
    const errors: string[] = [];
    writeFileSync(blocker, 'x');
    const inspection = createInspection(
      { kind: 'jsonl', file: join(blocker, 'events.jsonl') },
      { known: new SecretValues(), secrets: () => [], onError: (message) => errors.push(message) },
    );
    const actor = createActor(serverLogic, {
      input: {
        definition: secretServerDefinition(),
        generation: 1,
        connector: createScriptedConnector().connector,
      },
      inspect: inspection.inspect,
    }).start();
    actor.send({ type: 'CONNECT' });
    actor.stop();
    await inspection.dispose();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('MCP inspection: cannot write');
  });

  it('reports an unreachable inspector once, without the token, and disposes promptly', async () => {
    const closed = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => closed.once('listening', () => resolve()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const errors: string[] = [];
    const inspection = createInspection(
      { kind: 'websocket', url: `ws://127.0.0.1:${port}/ws?token=very-secret-token` },
      { known: new SecretValues(), secrets: () => [], onError: (message) => errors.push(message) },
    );
    const actor = createActor(serverLogic, {
      input: {
        definition: secretServerDefinition(),
        generation: 1,
        connector: createScriptedConnector().connector,
      },
      inspect: inspection.inspect,
    }).start();
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    actor.stop();
    await inspection.dispose();
    expect(errors[0]).toContain(`cannot reach ws://127.0.0.1:${port}/ws`);
    expect(errors[0]).not.toContain('very-secret-token');
  });
});
