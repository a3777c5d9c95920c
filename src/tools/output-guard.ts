// Keeps a tool result within what is sensible to put in the model's context. When the text blocks
// together exceed the byte or line limit, the middle is cut: the head and the tail stay, a marker
// says how much was cut, and the full text is saved to a private temp file named in the marker.
// Cuts are byte-based (snapped to a line end when one is near, else to a UTF-8 character boundary),
// so a single huge line is cut like any other text. Images pass through untouched.

import type { PiContent } from './content.ts';
import { errorText, formatBytes, writePrivateFile } from './spill.ts';

export const DEFAULT_OUTPUT_LIMIT_BYTES = 50 * 1024;
export const DEFAULT_OUTPUT_LIMIT_LINES = 2000;

export interface GuardOptions {
  /** Total text bytes kept inline (default 50 KiB when not positive). */
  limitBytes: number;
  /** Where the full text is saved, as a 0600 file. */
  tempDir: string;
  /** Names the saved file, e.g. the tool name. */
  label: string;
  /** Total text lines kept inline (default 2,000). */
  limitLines?: number;
}

const NEWLINE = 0x0a;

interface TextPart {
  bytes: Buffer;
  /** Bytes kept from the start of this block. */
  headEnd: number;
  /** Bytes kept from here to the end of this block. */
  tailStart: number;
}

export function guardOutput(content: PiContent[], options: GuardOptions): PiContent[] {
  try {
    return guard(content, options);
  } catch {
    return content;
  }
}

function guard(content: PiContent[], options: GuardOptions): PiContent[] {
  const limitBytes = options.limitBytes > 0 ? options.limitBytes : DEFAULT_OUTPUT_LIMIT_BYTES;
  const limitLines =
    options.limitLines && options.limitLines > 0 ? options.limitLines : DEFAULT_OUTPUT_LIMIT_LINES;
  const parts = new Map<number, TextPart>();
  content.forEach((c, i) => {
    if (c.type === 'text') {
      const bytes = Buffer.from(c.text, 'utf8');
      parts.set(i, { bytes, headEnd: 0, tailStart: bytes.length });
    }
  });
  const texts = [...parts.values()];
  const totalBytes = texts.reduce((n, p) => n + p.bytes.length, 0);
  const totalLines = texts.reduce((n, p) => n + countLines(p.bytes), 0);
  if (totalBytes <= limitBytes && totalLines <= limitLines) return content;

  markHead(texts, Math.ceil(limitBytes / 2), Math.ceil(limitLines / 2));
  markTail(texts, Math.floor(limitBytes / 2), Math.floor(limitLines / 2));
  let keptBytes = 0;
  let keptLines = 0;
  for (const p of texts) {
    const whole = p.headEnd >= p.tailStart;
    keptBytes += whole ? p.bytes.length : p.headEnd + p.bytes.length - p.tailStart;
    keptLines += whole
      ? countLines(p.bytes)
      : countLines(p.bytes.subarray(0, p.headEnd)) + countLines(p.bytes.subarray(p.tailStart));
  }
  if (keptBytes === totalBytes) return content;

  const marker = describeCut(
    totalBytes - keptBytes,
    totalLines - keptLines,
    totalBytes,
    saveFull(texts, options.tempDir, options.label),
  );
  const out: PiContent[] = [];
  let markerPlaced = false;
  content.forEach((c, i) => {
    const p = parts.get(i);
    if (!p || p.headEnd >= p.tailStart) {
      out.push(c);
      return;
    }
    const head = p.bytes.subarray(0, p.headEnd).toString('utf8');
    const tail = p.bytes.subarray(p.tailStart).toString('utf8');
    let text = head ? `${head}\n` : '';
    if (!markerPlaced) text += tail ? `${marker}\n\n` : marker;
    text += tail;
    markerPlaced = true;
    if (text) out.push({ type: 'text', text });
  });
  return out;
}

function saveFull(texts: TextPart[], tempDir: string, label: string): { path: string } | { error: string } {
  try {
    const full = Buffer.concat(texts.flatMap((p, i) => (i === 0 ? [p.bytes] : [Buffer.from('\n'), p.bytes])));
    return { path: writePrivateFile(tempDir, `mcp-output-${label}`, '.txt', full) };
  } catch (error) {
    return { error: errorText(error) };
  }
}

function describeCut(
  cutBytes: number,
  cutLines: number,
  totalBytes: number,
  saved: { path: string } | { error: string },
): string {
  const what = `${formatBytes(cutBytes)} (${cutLines.toLocaleString('en-US')} lines) of ${formatBytes(totalBytes)}`;
  const where =
    'path' in saved
      ? `The full output is saved in ${saved.path}; read or search that file for the part that was cut.`
      : `The full output could not be saved (${saved.error}).`;
  return `[… output truncated: ${what} cut from the middle. ${where} …]`;
}

/** Keeps up to `bytes` and `lines` from the start of the blocks, in order. */
function markHead(texts: TextPart[], bytes: number, lines: number): void {
  for (const p of texts) {
    p.headEnd = headCut(p.bytes, bytes, lines);
    bytes -= p.headEnd;
    lines -= countLines(p.bytes.subarray(0, p.headEnd));
    if (p.headEnd < p.bytes.length) return;
  }
}

/** Keeps up to `bytes` and `lines` from the end of the blocks, last block first. */
function markTail(texts: TextPart[], bytes: number, lines: number): void {
  for (const p of [...texts].reverse()) {
    p.tailStart = tailCut(p.bytes, bytes, lines);
    bytes -= p.bytes.length - p.tailStart;
    lines -= countLines(p.bytes.subarray(p.tailStart));
    if (p.tailStart > 0) return;
  }
}

function headCut(buf: Buffer, maxBytes: number, maxLines: number): number {
  if (maxBytes <= 0 || maxLines <= 0) return 0;
  let end = Math.min(buf.length, maxBytes);
  let newline = -1;
  for (let found = 0; found < maxLines; found++) {
    const next = buf.indexOf(NEWLINE, newline + 1);
    if (next < 0 || next >= end) break;
    newline = next;
    if (found + 1 === maxLines) return newline + 1;
  }
  if (end === buf.length) return end;
  const lastNewline = buf.lastIndexOf(NEWLINE, end - 1);
  if (lastNewline >= end / 2) return lastNewline + 1;
  while (end > 0 && isContinuationByte(buf[end])) end--;
  return end;
}

function tailCut(buf: Buffer, maxBytes: number, maxLines: number): number {
  if (maxBytes <= 0 || maxLines <= 0) return buf.length;
  let start = Math.max(0, buf.length - maxBytes);
  // A final newline ends the last line rather than starting another.
  let newline = buf[buf.length - 1] === NEWLINE ? buf.length - 1 : buf.length;
  for (let found = 0; found < maxLines; found++) {
    const previous = newline > 0 ? buf.lastIndexOf(NEWLINE, newline - 1) : -1;
    if (previous < start) break;
    newline = previous;
    if (found + 1 === maxLines) return newline + 1;
  }
  if (start === 0) return 0;
  const firstNewline = buf.indexOf(NEWLINE, start - 1);
  if (firstNewline >= 0 && firstNewline + 1 <= start + (buf.length - start) / 2) return firstNewline + 1;
  while (start < buf.length && isContinuationByte(buf[start])) start++;
  return start;
}

function countLines(buf: Buffer): number {
  if (buf.length === 0) return 0;
  let lines = buf[buf.length - 1] === NEWLINE ? 0 : 1;
  for (let i = buf.indexOf(NEWLINE); i >= 0; i = buf.indexOf(NEWLINE, i + 1)) lines++;
  return lines;
}

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}
