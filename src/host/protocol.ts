// The shared host's wire protocol: newline-delimited JSON over the host's Unix socket, between the
// host (src/host/) and the sessions attached to it (src/adapters/host/). Types only.
//
// Every id on this wire belongs to the side that made it: a session's call ids and attachment ids are
// its own (the host keys them by client), and the host's ask ids are the host's. Nothing a session
// sends names another session's request.

import type { ServerDefinition, ShareScope } from '../config/types.ts';
import type { ConnectionEvent, Progress } from '../ports/connection.ts';
import type { InstanceState, OthersInFlight } from '../ports/host.ts';
import type {
  CallToolResult,
  ConnectErrorKind,
  ElicitRequest,
  GetPromptResult,
  PromptDescriptor,
  ReadResourceResult,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
  Root,
  SamplingRequest,
  ServerCatalog,
  ToolDescriptor,
} from '../ports/mcp.ts';
import type { ServerState, ServerTag } from '../ports/server-state.ts';

export type { ShareScope };

/** The server requests a session answers (declared to the server as client capabilities). */
export interface AnsweredRequests {
  roots: boolean;
  elicit: boolean;
  sample: boolean;
}

/** What a session asks the host to run: the instance key is computed from all of it. */
export interface InstanceRequest {
  definition: ServerDefinition;
  share: Exclude<ShareScope, 'session'>;
  /** The project folder (share `project`). */
  project?: string;
  /** The roots the session gives this server, when it answers roots/list. */
  roots?: Root[];
  answers: AnsweredRequests;
  protocolErasFile?: string;
}

export type Operation =
  | { op: 'callTool'; name: string; args: Record<string, unknown> }
  | { op: 'readResource'; uri: string }
  | { op: 'getPrompt'; name: string; args: Record<string, string> }
  | {
      op: 'completePrompt';
      prompt: string;
      argument: { name: string; value: string };
      context: Record<string, string>;
    }
  | { op: 'listTools' }
  | { op: 'listResources' }
  | { op: 'listResourceTemplates' }
  | { op: 'listPrompts' }
  | { op: 'ping' };

export type OperationResult =
  | CallToolResult
  | ReadResourceResult
  | GetPromptResult
  | ToolDescriptor[]
  | ResourceDescriptor[]
  | ResourceTemplateDescriptor[]
  | PromptDescriptor[]
  | string[]
  | null;

/** An error as it crosses the wire: rebuilt on the session's side as the same class. */
export interface WireError {
  name: 'CallError' | 'ConnectError' | 'HostRefusal' | 'Error';
  message: string;
  kind?: string;
  code?: number;
  status?: number;
  stderrTail?: string;
  /** A failed attach: the instance's next try (epoch ms), which the session's backoff waits for. */
  retryAt?: number;
}

export type ConnectFailure = WireError & { name: 'ConnectError'; kind: ConnectErrorKind };

export type AskKind = 'elicit' | 'sample';

/**
 * The wire protocol's version. With the build (./build-identity.ts) it must match exactly: a host
 * answers only a hello of its own protocol and build, and a session trusts only a welcome that matches
 * and proves the key (./host-key.ts). 1 was the hello without either (the first builds).
 */
export const WIRE_PROTOCOL = 2;

/** A nonce or proof longer than this is not one of ours. */
export const MAX_NONCE_LENGTH = 128;

export type ClientMessage =
  /** First: which protocol and build this session speaks, and its nonce (nothing secret). */
  | { t: 'hello'; protocol: number; build: string; pid: number; label: string; nonce: string }
  /** Second, only after the welcome proved the key: the session's proof over both nonces. */
  | { t: 'proof'; proof: string }
  | { t: 'attach'; a: number; request: InstanceRequest }
  /** `retire`: the session's config no longer has the server; with nobody else attached it closes now. */
  | { t: 'detach'; a: number; retire?: boolean }
  /**
   * `/mcp reconnect` in this session: the host restarts the instance behind this attachment, unless
   * other sessions have calls running on it and `force` is not set (answered with `restart-answer`).
   */
  | { t: 'restart'; a: number; force?: boolean }
  | {
      t: 'call';
      id: number;
      a: number;
      operation: Operation;
      timeoutMs?: number;
      resetTimeoutOnProgress?: boolean;
      progress: boolean;
    }
  | { t: 'cancel'; id: number }
  | { t: 'answer'; ask: number; value?: unknown; error?: WireError }
  | { t: 'status' }
  /** This session's inspection is on (or off): it is sent its instance actors' events (./host-inspection.ts). */
  | { t: 'inspect'; on: boolean };

/** This process's hello: the first message on any line to the host. */
export function helloOf(build: string, label: string, nonce: string): Extract<ClientMessage, { t: 'hello' }> {
  return { t: 'hello', protocol: WIRE_PROTOCOL, build, pid: process.pid, label, nonce };
}

export type HostMessage =
  /** The answer to a hello of the host's protocol and build: its proof of the key over both nonces. */
  | {
      t: 'welcome';
      protocol: number;
      build: string;
      version: string;
      pid: number;
      nonce: string;
      proof: string;
    }
  /** The answer to a hello of another protocol or build: the line closes after it. */
  | { t: 'other-build'; protocol: number; build: string }
  | {
      t: 'attached';
      a: number;
      instance: string;
      catalog: ServerCatalog;
      pid?: number;
      stderrTail: string;
      state: InstanceState;
    }
  /** The instance's actor changed state (pushed to every attachment of it). */
  | { t: 'state'; a: number; state: InstanceState }
  | { t: 'attach-failed'; a: number; error: WireError }
  /** The answer to `restart`: `held` when it did not restart because it would cut other sessions' calls. */
  | { t: 'restart-answer'; a: number; held?: OthersInFlight }
  | { t: 'result'; id: number; value: OperationResult }
  | { t: 'failed'; id: number; error: WireError }
  | { t: 'progress'; id: number; progress: Progress }
  | { t: 'event'; a: number; event: ConnectionEvent }
  | { t: 'log'; a: number; level: string; text: string }
  | ({ t: 'ask'; ask: number; a: number } & AskQuestion)
  | { t: 'ask-cancelled'; ask: number }
  | { t: 'status'; status: HostStatus }
  /** The answer to `inspect`: from here on, the events of the instances this session is attached to. */
  | { t: 'inspecting'; on: boolean }
  /** One inspection event of an instance actor this session is attached to, redacted by the host. */
  | { t: 'inspect'; event: Record<string, unknown> };

/** A server's question to a session: an elicitation or a sampling request. */
export type AskQuestion =
  | { kind: 'elicit'; request: ElicitRequest }
  | { kind: 'sample'; request: SamplingRequest };

export interface HostStatus {
  version: string;
  build: string;
  pid: number;
  socket: string;
  startedAt: number;
  /** How long it stays up once no session is attached. */
  idleMs?: number;
  /** When it stops (epoch ms) unless a session attaches: set while no session is attached. */
  stopsAt?: number;
  clients: Array<{
    id: number;
    pid: number;
    label: string;
    attachments: number;
    inFlight: number;
    /** Only asks (`pi-mcp-actors host`, a panel asking which copies are warm): not a session. */
    probe?: true;
  }>;
  instances: Array<{
    key: string;
    server: string;
    share: ShareScope;
    project?: string;
    /** The instance's server actor: its top-level state and its tags (server.machine.ts). */
    state: ServerState;
    tags: ServerTag[];
    pid?: number;
    attached: number;
    /** Calls of the attached sessions running now. */
    inFlight: number;
    /** What the actor counts as in flight: each attachment holds it, so it does not idle out while attached. */
    held: number;
    /** When the host made this copy (epoch ms). */
    since?: number;
    /** With other copies of the same server: the parts of the key they differ in (`env FOO`, `project folder`). */
    differs?: string[];
  }>;
}
