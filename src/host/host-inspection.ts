// Live inspection of the host's instance actors (docs/inspect.md), for the sessions that inspect their
// own. A session whose inspection is on says so (`{ t: 'inspect', on: true }`) and is then sent the
// inspection events of the instance actors it is attached to, and of no other: nothing of an instance a
// session is not attached to reaches it, and it stops hearing one when it detaches or turns inspection
// off. Each (session, instance) pair is its own Inspection of src/inspect/inspector.ts (the same double
// redaction, with the host's known secrets), whose sink is that session's line; a session that starts
// following an instance is first sent its actors as they are now (registration with the current
// snapshot). The session writes them to its own sinks, redacting once more with its secrets.
//
// Ids are made the host's (`host:<pid>:` before XState's own), and the instance actor is
// `host:server:<name>`, so an inspector tells them from a session's own `server:<name>`. With no
// session inspecting, an instance's events cost one check, and the inspector module is not loaded.

import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { Inspection } from '../inspect/inspector.ts';
import type { SecretValues } from '../redact/index.ts';
import type { AskTarget } from './asks.ts';

type InspectingClient = AskTarget['client'];

/** What is read of an instance (./instance.ts). */
export interface InspectedInstance {
  readonly actor: AnyActorRef;
  readonly attachments: Iterable<AskTarget>;
  readonly request: { readonly definition: { readonly name: string } };
}

/** The ids of a Stately inspection event that name actors. */
const ACTOR_IDS = ['sessionId', 'parentId', 'rootId', 'sourceId'] as const;

const NONE: ReadonlyMap<InspectingClient, Inspection> = new Map();

export class HostInspection {
  /** Clients whose inspection is on (their wish, kept while the inspector module loads). */
  private readonly wanted = new Set<InspectingClient>();
  private readonly inspecting = new Set<InspectingClient>();
  private readonly following = new Map<InspectedInstance, Map<InspectingClient, Inspection>>();
  private module: typeof import('../inspect/inspector.ts') | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly secrets: SecretValues,
    private readonly instances: () => Iterable<InspectedInstance>,
    private readonly hostPid = process.pid,
  ) {}

  /** The `inspect` callback of an instance's actor. */
  inspect(instance: InspectedInstance, event: InspectionEvent): void {
    if (this.inspecting.size === 0) return;
    for (const inspection of this.sync(instance).values()) inspection.inspect(event);
  }

  /** Resolves once the client is sent its instances' events (or, off, no longer is). */
  async setInspecting(client: InspectingClient, on: boolean): Promise<void> {
    if (!on) {
      this.wanted.delete(client);
      this.inspecting.delete(client);
      for (const instance of [...this.following.keys()]) this.sync(instance);
      return;
    }
    this.wanted.add(client);
    this.loading ??= import('../inspect/inspector.ts').then((module) => {
      this.module = module;
    });
    await this.loading;
    // The client may have gone, or turned it off, while the module loaded.
    if (!this.wanted.has(client)) return;
    this.inspecting.add(client);
    for (const instance of this.instances()) this.sync(instance);
  }

  /** The inspections of this instance: one per inspecting client attached to it, made or ended here. */
  private sync(instance: InspectedInstance): ReadonlyMap<InspectingClient, Inspection> {
    const clients = new Set<InspectingClient>();
    for (const { client } of instance.attachments) if (this.inspecting.has(client)) clients.add(client);
    let pairs = this.following.get(instance);
    if (!pairs) {
      if (clients.size === 0) return NONE;
      pairs = new Map();
      this.following.set(instance, pairs);
    }
    for (const [client, inspection] of pairs) {
      if (clients.has(client)) continue;
      pairs.delete(client);
      void inspection.dispose();
    }
    for (const client of clients) if (!pairs.has(client)) pairs.set(client, this.follow(client, instance));
    if (pairs.size === 0) this.following.delete(instance);
    return pairs;
  }

  private follow(client: InspectingClient, instance: InspectedInstance): Inspection {
    const root = instance.actor;
    const prefix = `host:${this.hostPid}:`;
    const systemId = `host:server:${instance.request.definition.name}`;
    let open = true;
    const inspection = this.module!.createInspectionWith(
      () => ({
        start: () => {},
        stop: () => {},
        send(event) {
          if (open)
            client.send({ t: 'inspect', event: asHostEvent(event, prefix, root.sessionId, systemId) });
        },
        close: async () => {
          open = false;
        },
      }),
      { known: this.secrets },
    );
    // A late joiner: the instance's actors as they are now, each registration carrying its snapshot.
    const register = (ref: AnyActorRef) => {
      inspection.inspect({ type: '@xstate.actor', actorRef: ref, rootId: root.sessionId });
      const children = (ref.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> }).children;
      for (const child of Object.values(children ?? {})) if (child) register(child);
    };
    register(root);
    return inspection;
  }
}

/** A redacted Stately event with the host's ids, the instance actor named `host:server:<name>`. */
function asHostEvent(
  event: unknown,
  prefix: string,
  rootSessionId: string,
  systemId: string,
): Record<string, unknown> {
  const out = { ...(event as Record<string, unknown>) };
  if (out.type === '@xstate.actor' && out.sessionId === rootSessionId) out.systemId = systemId;
  for (const key of ACTOR_IDS) if (typeof out[key] === 'string') out[key] = `${prefix}${out[key]}`;
  return out;
}
