// A resource template's call must fill in every required variable before we read anything: the
// model gets told which ones are missing and how to call it.

import type { CatalogEntry } from '../catalog/catalog.ts';
import { templateVariables } from '../catalog/uri-template.ts';
import { summarizeParameters } from './param-summary.ts';

/** The error text for a template call without its required variables; undefined when nothing is missing. */
export function missingTemplateArguments(
  entry: CatalogEntry,
  args: Record<string, unknown>,
): string | undefined {
  if (entry.kind !== 'template' || entry.uriTemplate === undefined) return undefined;
  const missing = templateVariables(entry.uriTemplate)
    .filter((v) => v.required && !hasValue(args[v.name]))
    .map((v) => v.name);
  if (missing.length === 0) return undefined;
  const list = missing.map((name) => `"${name}"`).join(', ');
  const example = JSON.stringify(Object.fromEntries(missing.map((name) => [name, '…'])));
  return [
    `${entry.name} is missing the required argument${missing.length > 1 ? 's' : ''} ${list} (the variable${missing.length > 1 ? 's' : ''} of ${entry.uriTemplate}).`,
    summarizeParameters(entry.inputSchema),
    `Call it again with them, e.g. ${entry.name}(${example}).`,
  ].join('\n');
}

function hasValue(value: unknown): boolean {
  if (typeof value === 'string') return value !== '';
  if (typeof value === 'number' || typeof value === 'boolean') return true;
  return Array.isArray(value) && value.length > 0;
}
