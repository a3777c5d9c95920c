// The final redaction pass over a Stately inspection event, just before it is written or sent. The
// envelope (ids, actor name, state value, event type) is structure from our own machines and stays
// readable so inspectors can draw it; everything else goes through the redactor.

import type { ServerErrorDetail } from '../ports/server-state.ts';
import type { Redactor } from '../redact/index.ts';
import { serverErrorText } from '../server-error-text.ts';

const ENVELOPE = new Set([
  'type',
  'name',
  'systemId',
  'sessionId',
  'rootId',
  'parentId',
  'sourceId',
  'id',
  'createdAt',
  '_version',
]);

export function redactInspectionEvent(event: object, redactor: Redactor): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) {
    if (ENVELOPE.has(key) && (value === null || value === undefined || typeof value !== 'object')) {
      out[key] = value;
    } else if (key === 'definition' && typeof value === 'string') {
      out[key] = redactDefinition(value, redactor);
    } else if (key === 'snapshot') {
      out[key] = redactSnapshot(value, redactor);
    } else if (key === 'event') {
      out[key] = redactEventObject(value, redactor);
    } else {
      out[key] = redactor.value(value);
    }
  }
  return out;
}

/** A redacted plain copy of an actor snapshot that keeps its state value readable. */
export function redactSnapshot(snapshot: unknown, redactor: Redactor): unknown {
  return withWordedError(withOriginal(redactor.value(snapshot), snapshot, 'value', copyStateValue), redactor);
}

/**
 * A server's last error is stored as data (`{ kind, detail }`); the page shows it in the words every
 * other surface uses (src/server-error-text.ts), added beside the data as `message`.
 */
function withWordedError(redacted: unknown, redactor: Redactor): unknown {
  const context = (redacted as { context?: unknown } | null)?.context;
  const lastError = (context as { lastError?: unknown } | null | undefined)?.lastError;
  if (typeof lastError !== 'object' || lastError === null || !('detail' in lastError)) return redacted;
  const detail = (lastError as { detail?: unknown }).detail;
  if (
    typeof detail !== 'object' ||
    detail === null ||
    typeof (detail as { cause?: unknown }).cause !== 'string'
  )
    return redacted;
  const message = redactor.text(serverErrorText({ detail: detail as ServerErrorDetail }));
  return {
    ...(redacted as object),
    context: { ...(context as object), lastError: { ...lastError, message } },
  };
}

/** A redacted plain copy of an XState event that keeps its type readable. */
export function redactEventObject(event: unknown, redactor: Redactor): unknown {
  return withOriginal(redactor.value(event), event, 'type', (type) =>
    typeof type === 'string' ? type : undefined,
  );
}

/** The machine definition arrives as a JSON string; redact it as data, or as text if it is not JSON. */
function redactDefinition(definition: string, redactor: Redactor): string {
  try {
    return JSON.stringify(redactor.value(JSON.parse(definition)));
  } catch {
    return redactor.text(definition);
  }
}

function withOriginal(
  redacted: unknown,
  original: unknown,
  key: string,
  copy: (value: unknown) => unknown,
): unknown {
  if (
    typeof redacted !== 'object' ||
    redacted === null ||
    typeof original !== 'object' ||
    original === null
  ) {
    return redacted;
  }
  const kept = copy((original as Record<string, unknown>)[key]);
  return kept === undefined ? redacted : { ...redacted, [key]: kept };
}

/** State values are state names from the machine (`'connecting'` or `{ connected: 'idle' }`). */
function copyStateValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || depth > 8) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const copied = copyStateValue(child, depth + 1);
    if (copied !== undefined) out[key] = copied;
  }
  return out;
}
