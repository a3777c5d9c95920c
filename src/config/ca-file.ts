// `caFile` is checked when the config loads, so a missing or broken CA file is reported at its key
// (and costs only that server) instead of failing every connect.

import { X509Certificate } from 'node:crypto';
import { diagnostic } from './diagnostics.ts';
import { formatPath, type PathSegment } from './json-path.ts';
import type { ReadFile } from './read-file.ts';
import type { Diagnostic, ServerDefinition } from './types.ts';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

export type CaFileCheck =
  | { ok: true; diagnostics: Diagnostic[] }
  | { ok: false; reason: string; fix: string; diagnostics: Diagnostic[] };

export function checkCaFile(
  definition: ServerDefinition,
  entryPath: PathSegment[],
  read: ReadFile,
): CaFileCheck {
  const file = definition.caFile;
  if (file === undefined) return { ok: true, diagnostics: [] };
  const place = {
    file: definition.source.file,
    path: formatPath([...entryPath, 'caFile']),
    server: definition.name,
  };
  if (!definition.url?.startsWith('https:')) {
    delete definition.caFile;
    const message = `Server "${definition.name}": caFile applies to https URLs only and is ignored.`;
    return { ok: true, diagnostics: [diagnostic('warning', 'ignored-key', message, place)] };
  }
  const problem = pemProblem(file, read);
  if (problem === undefined) return { ok: true, diagnostics: [] };
  const reason = `caFile ${file} ${problem}`;
  const fix = 'Point "caFile" at the PEM file of the CA that signed the server’s certificate.';
  const message = `Server "${definition.name}": ${reason}, so the server is skipped.`;
  return {
    ok: false,
    reason,
    fix,
    diagnostics: [diagnostic('error', 'invalid-ca-file', message, { ...place, fix })],
  };
}

function pemProblem(file: string, read: ReadFile): string | undefined {
  let text: string | undefined;
  try {
    text = read(file);
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'read failed'})`;
  }
  if (text === undefined) return 'does not exist';
  const certificates = text.match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0) return 'holds no PEM certificate';
  try {
    for (const certificate of certificates) new X509Certificate(certificate);
  } catch {
    return 'holds a certificate that does not parse';
  }
  return undefined;
}
