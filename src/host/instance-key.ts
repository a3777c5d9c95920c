// What makes two sessions' servers the same instance: everything that changes what runs (the resolved
// definition with its env values, the roots and capabilities it is given, and for `project` the
// project folder), hashed. Fields that only shape the session's own view (its name, where it was
// defined, tool exposure, idle timing) are left out, so two sessions naming one server differently
// still share it.

import { createHash } from 'node:crypto';
import type { ServerDefinition } from '../config/types.ts';
import type { InstanceRequest } from './protocol.ts';

const VIEW_ONLY_FIELDS: ReadonlySet<keyof ServerDefinition> = new Set([
  'name',
  'source',
  'description',
  'configHash',
  'lifecycle',
  'idleTimeoutMs',
  'healthCheckMs',
  'exposure',
  'toolExposure',
  'directTools',
  'approveTools',
  'searchKeywords',
  'toolPrefix',
  'includeTools',
  'excludeTools',
  'requestTimeoutMs',
]);

export function instanceKey(request: InstanceRequest): string {
  const runs: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(request.definition)) {
    if (!VIEW_ONLY_FIELDS.has(field as keyof ServerDefinition)) runs[field] = value;
  }
  const material = {
    runs,
    share: request.share,
    project: request.share === 'project' ? request.project : undefined,
    roots: request.roots,
    answers: request.answers,
  };
  return createHash('sha256').update(stableJson(material)).digest('hex').slice(0, 24);
}

/** JSON with object keys sorted, so equal values hash equally whatever order they were built in. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
