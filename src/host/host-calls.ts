// The two steps of a session's call on an instance (src/machines/host-call.machine.ts): wait for the
// live connection, then run the operation on it as its own upstream request. Each step answers the
// session itself (result, progress, or failure), so a call stopped by a cancel or a detach still
// answers with what its abort did, as the session expects.

import { fromPromise } from 'xstate';
import { type HostCallInput, hostCallMachine } from '../machines/host-call.machine.ts';
import type { CallOptions, Connection } from '../ports/connection.ts';
import type { AttachedClient, Attachment, Instance } from './instance.ts';
import type { ClientMessage, Operation, OperationResult, WireError } from './protocol.ts';
import { toWire } from './wire-error.ts';

/** What the host hands a call child (its `work`). */
export interface CallWork {
  readonly client: AttachedClient;
  readonly attachment: Attachment;
  readonly instance: Instance;
  readonly message: Extract<ClientMessage, { t: 'call' }>;
  /** The instance's restarts when the call got its connection: one since means a restart cut it. */
  restarts: number;
}

/** A call on an attachment whose connection has ended (or a copy that is gone). */
export const NOT_RUNNING: WireError = {
  name: 'CallError',
  kind: 'closed',
  message: 'The shared server is no longer running.',
};

/** A call cut off because a session restarted its server: the one wording of that rule. */
function restartedWire(instance: Instance): WireError {
  return {
    name: 'CallError',
    kind: 'closed',
    message: `another session restarted "${instance.request.definition.name}" (/mcp reconnect) while the call ran`,
  };
}

const awaitConnection = fromPromise<unknown, HostCallInput>(async ({ input, signal }) => {
  const work = input.work as CallWork;
  const { client, instance, message } = work;
  work.restarts = instance.restarts;
  // A call racing the connection's end fails; the session then hears the end (and where the instance
  // went) and its own actor follows.
  const connection = await instance.connectionSoon(signal);
  if (!connection) {
    const error = signal.aborted
      ? { name: 'CallError' as const, kind: 'aborted', message: 'The call was cancelled.' }
      : instance.restarts !== work.restarts
        ? restartedWire(instance)
        : NOT_RUNNING;
    client.send({ t: 'failed', id: message.id, error });
    return undefined;
  }
  work.restarts = instance.restarts;
  return connection;
});

const runCall = fromPromise<unknown, HostCallInput & { connection: unknown }>(async ({ input, signal }) => {
  const work = input.work as CallWork;
  const { client, instance, attachment, message } = work;
  const { id } = message;
  try {
    const value = await instance.runFor(attachment, () =>
      run(input.connection as Connection, message.operation, {
        signal,
        ...(message.timeoutMs === undefined ? {} : { timeoutMs: message.timeoutMs }),
        ...(message.resetTimeoutOnProgress === undefined
          ? {}
          : { resetTimeoutOnProgress: message.resetTimeoutOnProgress }),
        ...(message.progress
          ? { onProgress: (progress) => client.send({ t: 'progress', id, progress }) }
          : {}),
      }),
    );
    client.send({ t: 'result', id, value });
  } catch (error) {
    const restarted = instance.restarts !== work.restarts && !signal.aborted;
    client.send({ t: 'failed', id, error: restarted ? restartedWire(instance) : toWire(error) });
  }
  return null;
});

export const hostCallLogic = hostCallMachine.provide({ actors: { awaitConnection, runCall } });

/** One operation of a session on the instance's connection, as its own upstream request. */
function run(connection: Connection, operation: Operation, options: CallOptions): Promise<OperationResult> {
  const { signal } = options;
  switch (operation.op) {
    case 'callTool':
      return connection.callTool(operation.name, operation.args, options);
    case 'readResource':
      return connection.readResource(operation.uri, options);
    case 'getPrompt':
      return connection.getPrompt(operation.name, operation.args, options);
    case 'completePrompt':
      return connection.completePrompt
        ? connection.completePrompt(operation.prompt, operation.argument, operation.context, signal)
        : Promise.resolve([]);
    case 'listTools':
      return connection.listTools(signal);
    case 'listResources':
      return connection.listResources(signal);
    case 'listResourceTemplates':
      return connection.listResourceTemplates(signal);
    case 'listPrompts':
      return connection.listPrompts(signal);
    case 'ping':
      return connection.ping ? connection.ping(signal).then(() => null) : Promise.resolve(null);
  }
}
