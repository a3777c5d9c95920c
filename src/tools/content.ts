// MCP content -> Pi content. Text and images go to the model as they are; binary content that the
// model cannot read inline (audio, non-text blobs) is saved to a private temp file and named by path.

import type { CallToolResult, McpContent, ReadResourceResult } from '../ports/mcp.ts';
import { errorText, formatBytes, writePrivateFile } from './spill.ts';
import { textCarries } from './structured-content.ts';

export type PiContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

export interface ConvertOptions {
  /** Where blobs and audio are written, as 0600 files. */
  tempDir: string;
  /** Largest decoded blob saved to a file (default 10 MiB); larger ones are described, not saved. */
  maxBlobBytes?: number;
}

export const DEFAULT_MAX_BLOB_BYTES = 10 * 1024 * 1024;

type ResourceContents = ReadResourceResult['contents'][number];

/** Image types the model can be shown directly. */
const MODEL_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': '.jpg',
  'image/svg+xml': '.svg',
  'audio/mpeg': '.mp3',
  'audio/x-wav': '.wav',
  'application/gzip': '.gz',
  'text/plain': '.txt',
  'text/markdown': '.md',
};

export function mcpResultToPi(
  result: CallToolResult,
  options: ConvertOptions,
): { content: PiContent[]; isError: boolean } {
  const isError = result?.isError === true;
  const content: PiContent[] = [];
  for (const block of Array.isArray(result?.content) ? result.content : []) {
    content.push(...convertBlock(block, options));
  }
  const structured = result?.structuredContent;
  if (structured !== undefined && structured !== null) {
    const texts = content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
    // Added only when the text does not already carry it (./structured-content.ts).
    if (texts.length === 0 || !textCarries(texts, structured))
      content.push({ type: 'text', text: JSON.stringify(structured) });
  }
  if (content.length === 0) {
    content.push({
      type: 'text',
      text: isError ? 'The tool reported an error without any details.' : 'The tool returned no content.',
    });
  }
  return { content, isError };
}

export function resourceResultToPi(result: ReadResourceResult, options: ConvertOptions): PiContent[] {
  const contents = Array.isArray(result?.contents) ? result.contents : [];
  const out = contents.flatMap((r) => guarded(() => resourceToPi(r, options)));
  return out.length > 0 ? out : [{ type: 'text', text: 'The resource returned no content.' }];
}

function convertBlock(block: McpContent, options: ConvertOptions): PiContent[] {
  return guarded(() => {
    switch (block.type) {
      case 'text':
        return [{ type: 'text', text: String(block.text ?? '') }];
      case 'image':
        return [{ type: 'image', data: String(block.data ?? ''), mimeType: block.mimeType || 'image/png' }];
      case 'audio': {
        const mime = block.mimeType || 'audio/unknown';
        return [text(`[Audio: ${mime}, ${saveBinary(block.data, mime, 'mcp-audio', options)}]`)];
      }
      case 'resource':
        return resourceToPi(block.resource, options);
      case 'resource_link': {
        const mime = block.mimeType ? ` (${block.mimeType})` : '';
        const description = block.description ? ` — ${block.description}` : '';
        return [text(`[Resource link: ${block.name}] ${block.uri}${mime}${description}`)];
      }
      default: {
        const unknown = block as { type?: unknown };
        const json = JSON.stringify(unknown);
        return [text(`[Unsupported content type "${String(unknown.type)}"] ${json.slice(0, 2000)}`)];
      }
    }
  });
}

function resourceToPi(resource: ResourceContents, options: ConvertOptions): PiContent[] {
  const header = `[Resource: ${resource.uri}]`;
  if (typeof resource.text === 'string') return [text(`${header}\n${resource.text}`)];
  if (typeof resource.blob !== 'string') return [text(`${header} (no content)`)];

  const mime = resource.mimeType || 'application/octet-stream';
  const limit = options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES;
  if (base64Size(resource.blob) <= limit) {
    if (MODEL_IMAGE_TYPES.has(mime))
      return [text(header), { type: 'image', data: resource.blob, mimeType: mime }];
    if (isTextual(mime)) {
      const decoded = decodeUtf8(Buffer.from(resource.blob, 'base64'));
      if (decoded !== undefined) return [text(`${header}\n${decoded}`)];
    }
  }
  return [
    text(`${header}\nBinary content (${mime}, ${saveBinary(resource.blob, mime, 'mcp-blob', options)})`),
  ];
}

/** Saves base64 data to a private file and says where, or says why it was not saved. */
function saveBinary(base64: string, mime: string, prefix: string, options: ConvertOptions): string {
  const limit = options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES;
  const size = base64Size(base64);
  if (size > limit) {
    return `${formatBytes(size)}, not saved: larger than the ${formatBytes(limit)} limit for saved content`;
  }
  try {
    const path = writePrivateFile(options.tempDir, prefix, extensionFor(mime), Buffer.from(base64, 'base64'));
    return `${formatBytes(size)}, saved to ${path}`;
  } catch (error) {
    return `${formatBytes(size)}, could not be saved: ${errorText(error)}`;
  }
}

function guarded(convert: () => PiContent[]): PiContent[] {
  try {
    return convert();
  } catch (error) {
    return [text(`[Unreadable content: ${errorText(error)}]`)];
  }
}

function text(value: string): PiContent {
  return { type: 'text', text: value };
}

function base64Size(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.replace(/\s+/g, '').length * 3) / 4) - padding);
}

function isTextual(mime: string): boolean {
  return (
    mime.startsWith('text/') ||
    /^application\/(json|xml|yaml|x-yaml|toml|javascript|x-sh)$/.test(mime) ||
    /\+(json|xml)$/.test(mime)
  );
}

function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function extensionFor(mime: string): string {
  const known = EXTENSIONS[mime];
  if (known) return known;
  const subtype = mime.split('/')[1] ?? '';
  return /^[a-z0-9]{1,8}$/.test(subtype) ? `.${subtype}` : '.bin';
}
