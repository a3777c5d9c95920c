// Pi's start phase on its own: every transition of next(), as a table, plus the hand-offs it keeps.

import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../../../src/actors/session-actor.ts';
import {
  closed,
  isCurrent,
  next,
  type StartEvent,
  type StartPhase,
  wakeOf,
} from '../../../../src/adapters/pi/start-phase.ts';
import type { LoadedConfig } from '../../../../src/config/types.ts';
import type { SessionStartup } from '../../../../src/session/describe-session.ts';

const request = { cwd: '/project', projectTrusted: true };
const runtime = Promise.resolve({} as Runtime);
const config = { servers: [] } as unknown as LoadedConfig;
const startup = { config } as SessionStartup;
const texts = new Map([['/mcp.json', '{}']]);
const saveRecord = async () => {};

const facts = { request, from: 'load' as const };
const preparing: StartPhase = { kind: 'preparing', ...facts };
const declared: StartPhase = { kind: 'declared', ...facts, wake: { reason: 'no-request' } };
const quiet: StartPhase = { kind: 'declared', ...facts, wake: undefined };
const started: StartPhase = { kind: 'started', ...facts, runtime };

type Row = [from: StartPhase, event: StartEvent, kind: StartPhase['kind'], wake: string | undefined];

describe('next(phase, event)', () => {
  const rows: Row[] = [
    [closed, { type: 'session_start', request, from: 'load' }, 'preparing', undefined],
    [started, { type: 'session_start', request, from: 'record' }, 'preparing', undefined],
    [preparing, { type: 'declared' }, 'declared', 'no-request'],
    [preparing, { type: 'start', runtime }, 'started', undefined],
    [preparing, { type: 'agent_start' }, 'preparing', undefined],
    [preparing, { type: 'provider_request' }, 'preparing', undefined],
    [declared, { type: 'agent_start' }, 'declared', undefined],
    [declared, { type: 'provider_request' }, 'declared', 'request-sent'],
    [quiet, { type: 'provider_request' }, 'declared', 'request-sent'],
    [declared, { type: 'start', runtime }, 'started', undefined],
    [started, { type: 'declared' }, 'started', undefined],
    [started, { type: 'provider_request' }, 'started', undefined],
    [started, { type: 'restart' }, 'declared', undefined],
    [declared, { type: 'restart' }, 'declared', undefined],
    [preparing, { type: 'session_shutdown' }, 'closed', undefined],
    [declared, { type: 'session_shutdown' }, 'closed', undefined],
    [started, { type: 'session_shutdown' }, 'closed', undefined],
    [closed, { type: 'start', runtime }, 'closed', undefined],
    [closed, { type: 'declared' }, 'closed', undefined],
    [closed, { type: 'restart' }, 'closed', undefined],
    [closed, { type: 'provider_request' }, 'closed', undefined],
    [closed, { type: 'session_shutdown' }, 'closed', undefined],
  ];
  const named = (phase: StartPhase) => `${phase.kind}${wakeOf(phase) ? `(${wakeOf(phase)?.reason})` : ''}`;
  const table = rows.map(
    ([from, event, kind, wake]) => [named(from), event.type, kind, wake, from, event] as const,
  );
  it.each(table)('%s + %s → %s, wake %s', (_from, _event, kind, wake, from, event) => {
    const to = next(from, event);
    expect(to.kind).toBe(kind);
    expect(wakeOf(to)?.reason).toBe(wake);
  });
});

describe('the start phase', () => {
  it('a new wake is a new object each time it is armed; other changes keep it', () => {
    const first = next(preparing, { type: 'declared' });
    const again = next(first, { type: 'provider_request' });
    const twice = next(again, { type: 'provider_request' });
    expect(wakeOf(again)).not.toBe(wakeOf(first));
    expect(wakeOf(twice)).not.toBe(wakeOf(again));
    expect(wakeOf(next(again, { type: 'loaded', config }))).toBe(wakeOf(again));
  });

  it('the start record hands its config texts to the first full load, and only to it', () => {
    const recorded = next(closed, { type: 'session_start', request, from: 'record', texts });
    expect(recorded.kind !== 'closed' && recorded.texts).toBe(texts);
    const loaded = next(recorded, { type: 'loaded', config });
    expect(loaded.kind !== 'closed' && loaded.texts).toBeUndefined();
    expect(loaded.kind !== 'closed' && loaded.config).toBe(config);
  });

  it('the startup read at session_start is taken once, and dropped by a restart', () => {
    const read = next(preparing, { type: 'read', startup });
    expect(read.kind !== 'closed' && read.startup).toBe(startup);
    expect(next(read, { type: 'startup_taken' })).not.toHaveProperty('startup');
    const running = next(read, { type: 'start', runtime });
    expect(running.kind === 'started' && running.runtime).toBe(runtime);
    expect(next(running, { type: 'restart' })).not.toHaveProperty('startup');
  });

  it('the start record is saved once: the first request takes it', () => {
    const toSave = next(preparing, { type: 'declared', saveRecord });
    expect(toSave.kind !== 'closed' && toSave.saveRecord).toBe(saveRecord);
    expect(next(toSave, { type: 'provider_request' })).not.toHaveProperty('saveRecord');
    const startedFirst = next(started, { type: 'declared', saveRecord });
    expect(startedFirst.kind === 'started' && startedFirst.saveRecord).toBe(saveRecord);
  });

  it('a restart keeps the session (request, config) and starts nothing by itself', () => {
    const withConfig = next(started, { type: 'loaded', config });
    const restarted = next(withConfig, { type: 'restart' });
    expect(isCurrent(restarted, request)).toBe(true);
    expect(restarted.kind !== 'closed' && restarted.config).toBe(config);
    expect(wakeOf(restarted)).toBeUndefined();
  });

  it('a shutdown ends the session but remembers how it started', () => {
    const ended = next({ ...started, from: 'record' }, { type: 'session_shutdown' });
    expect(ended).toEqual({ kind: 'closed', from: 'record' });
    expect(isCurrent(ended, request)).toBe(false);
  });

  it('only the current request is current: a newer session_start replaces it', () => {
    const newer = next(started, { type: 'session_start', request: { ...request }, from: 'load' });
    expect(isCurrent(newer, request)).toBe(false);
    expect(newer).not.toHaveProperty('runtime');
  });
});
