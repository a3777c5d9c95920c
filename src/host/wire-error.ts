// Errors across the host's socket: the class, kind and code survive, so the session's server actor
// and tool executor read a shared server's failure exactly as an in-session one.

import { CallError, type CallErrorKind } from '../ports/call-error.ts';
import { ConnectError, type ConnectErrorKind, HostRefusal } from '../ports/mcp.ts';
import type { WireError } from './protocol.ts';

export function toWire(error: unknown): WireError {
  if (error instanceof CallError)
    return { name: 'CallError', message: error.message, kind: error.kind, ...codeOf(error.code) };
  if (error instanceof ConnectError)
    return {
      name: 'ConnectError',
      message: error.message,
      kind: error.kind,
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.stderrTail === undefined ? {} : { stderrTail: error.stderrTail }),
      ...(error.retryAt === undefined ? {} : { retryAt: error.retryAt }),
    };
  if (error instanceof HostRefusal) return { name: 'HostRefusal', message: error.message };
  return { name: 'Error', message: error instanceof Error ? error.message : String(error) };
}

export function fromWire(wire: WireError): Error {
  switch (wire.name) {
    case 'CallError':
      return new CallError((wire.kind ?? 'server') as CallErrorKind, wire.message, codeOf(wire.code));
    case 'ConnectError':
      return new ConnectError((wire.kind ?? 'protocol') as ConnectErrorKind, wire.message, {
        ...(wire.status === undefined ? {} : { status: wire.status }),
        ...(wire.stderrTail === undefined ? {} : { stderrTail: wire.stderrTail }),
        ...(wire.retryAt === undefined ? {} : { retryAt: wire.retryAt }),
      });
    case 'HostRefusal':
      return new HostRefusal(wire.message);
    default:
      return new Error(wire.message);
  }
}

function codeOf(code: number | undefined): { code?: number } {
  return code === undefined ? {} : { code };
}
