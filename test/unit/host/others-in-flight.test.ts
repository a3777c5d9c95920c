// What a restart of an instance would cut: the calls of the other sessions running on it, counted per
// session, and the other sessions attached to it.

import { describe, expect, it } from 'vitest';
import { type CallerView, othersInFlight } from '../../../src/host/others-in-flight.ts';

const instance = { name: 'x' };
const other = { name: 'y' };

function client(attachedTo: object[], calls: Array<{ on: object; running: boolean }>): CallerView {
  const attachments = new Map(attachedTo.map((i, n) => [n, { instance: i }]));
  return {
    attachments,
    calls: new Map(calls.map((c, n) => [n, { attachment: { instance: c.on }, running: c.running }])),
  };
}

describe('othersInFlight', () => {
  it("counts the other sessions' running calls on the instance, the sessions they come from and those attached", () => {
    const asking = client([instance], [{ on: instance, running: true }]);
    const b = client(
      [instance],
      [
        { on: instance, running: true },
        { on: instance, running: true },
      ],
    );
    const c = client(
      [instance, other],
      [
        { on: instance, running: true },
        { on: other, running: true },
      ],
    );
    const idle = client([instance], []);
    expect(othersInFlight([asking, b, c, idle], asking, instance)).toEqual({
      calls: 3,
      callers: 2,
      attached: 3,
    });
  });

  it('nothing to cut: none of them, its own calls, calls not running yet (a start, a health ping), other instances', () => {
    const asking = client([instance], [{ on: instance, running: true }]);
    const waiting = client([instance], [{ on: instance, running: false }]);
    const elsewhere = client([other], [{ on: other, running: true }]);
    expect(othersInFlight([asking, waiting, elsewhere], asking, instance)).toBeUndefined();
  });
});
