// A session speaking the host's wire itself (hello, proof, then whatever the test sends), so a test
// sees every message the host sends it, in order.

import { connect } from 'node:net';
import { hostKey, newNonce, sessionProof } from '../../../src/host/host-key.ts';
import { LineChannel } from '../../../src/host/line-channel.ts';
import { hostKeyFile } from '../../../src/host/paths.ts';
import { type ClientMessage, type HostMessage, WIRE_PROTOCOL } from '../../../src/host/protocol.ts';
import { eventually, type HostWorld } from './harness.ts';

export type InspectEvent = Record<string, unknown> & { type: string; sessionId?: string };

export class WireSession {
  readonly received: HostMessage[] = [];
  private readonly channel: LineChannel<HostMessage, ClientMessage>;

  private constructor(world: HostWorld) {
    this.channel = new LineChannel<HostMessage, ClientMessage>(
      connect(world.socket),
      (message) => this.received.push(message),
      () => {},
    );
  }

  static async open(world: HostWorld, label: string): Promise<WireSession> {
    const session = new WireSession(world);
    const nonce = newNonce();
    session.channel.send({
      t: 'hello',
      protocol: WIRE_PROTOCOL,
      build: world.build,
      pid: process.pid,
      label,
      nonce,
    });
    const welcome = await session.next('welcome');
    const key = hostKey(hostKeyFile(world.agentDir));
    session.channel.send({ t: 'proof', proof: sessionProof(key, nonce, welcome.nonce) });
    return session;
  }

  send(message: ClientMessage): void {
    this.channel.send(message);
  }

  /** The first message of this kind received after the first `after` messages. */
  next<T extends HostMessage['t']>(t: T, after = 0): Promise<Extract<HostMessage, { t: T }>> {
    return eventually(() => {
      const found = this.received.slice(after).find((m) => m.t === t);
      if (!found) throw new Error(`no ${t} yet`);
      return found as Extract<HostMessage, { t: T }>;
    });
  }

  /** The inspection events received after the first `after` messages. */
  inspected(after = 0): InspectEvent[] {
    return this.received.slice(after).flatMap((m) => (m.t === 'inspect' ? [m.event as InspectEvent] : []));
  }

  close(): void {
    this.channel.close();
  }
}
