import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallToolResult, McpContent } from '../../../src/ports/mcp.ts';
import { mcpResultToPi, type PiContent, resourceResultToPi } from '../../../src/tools/content.ts';
import { everythingResult, fileMode, makeTempDir, savedPaths } from './helpers.ts';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => temp.cleanup());

const texts = (content: PiContent[]) => content.flatMap((c) => (c.type === 'text' ? [c.text] : []));

describe('mcpResultToPi with real server-everything results', () => {
  it('get-tiny-image: text, a Pi image with its mime type, text, in order', () => {
    const raw = everythingResult('get-tiny-image {}');
    const { content, isError } = mcpResultToPi(raw, { tempDir: temp.dir });
    expect(isError).toBe(false);
    expect(content).toEqual([
      { type: 'text', text: "Here's the image you requested:" },
      { type: 'image', data: (raw.content[1] as { data: string }).data, mimeType: 'image/png' },
      { type: 'text', text: 'The image above is the MCP logo.' },
    ]);
  });

  it('get-resource-links: one readable line per link with name, uri, mime type and description', () => {
    const { content } = mcpResultToPi(everythingResult('get-resource-links {"count":2}'), {
      tempDir: temp.dir,
    });
    expect(texts(content)).toEqual([
      'Here are 2 resource links to resources available in this server:',
      '[Resource link: Blob Resource 1] demo://resource/dynamic/blob/1 (text/plain) — Resource 1: plaintext resource',
      '[Resource link: Text Resource 2] demo://resource/dynamic/text/2 (text/plain) — Resource 2: plaintext resource',
    ]);
  });

  it('get-structured-content: structuredContent equal to a text block is not repeated', () => {
    const { content } = mcpResultToPi(everythingResult('get-structured-content {"location":"Chicago"}'), {
      tempDir: temp.dir,
    });
    expect(texts(content)).toEqual(['{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}']);
  });

  it('structuredContent equal up to key order and whitespace is not repeated either', () => {
    const raw = everythingResult('get-structured-content {"location":"Chicago"}');
    raw.content = [
      {
        type: 'text',
        text: '{\n  "humidity": 82,\n  "temperature": 36,\n  "conditions": "Light rain / drizzle"\n}',
      },
    ];
    expect(mcpResultToPi(raw, { tempDir: temp.dir }).content).toHaveLength(1);
  });

  it('structuredContent that no text block shows is appended as JSON', () => {
    const raw = everythingResult('get-structured-content {"location":"Chicago"}');
    raw.content = [{ type: 'text', text: 'Weather fetched.' }];
    const { content } = mcpResultToPi(raw, { tempDir: temp.dir });
    expect(texts(content)[0]).toBe('Weather fetched.');
    expect(JSON.parse(texts(content)[1]!)).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
  });

  it('structuredContent alone (empty content) becomes the JSON text', () => {
    const { content } = mcpResultToPi(
      { content: [], structuredContent: { ok: true } },
      { tempDir: temp.dir },
    );
    expect(content).toEqual([{ type: 'text', text: '{"ok":true}' }]);
  });

  it('get-annotated-message: annotations are dropped, text and image kept; not an MCP error result', () => {
    const { content, isError } = mcpResultToPi(
      everythingResult('get-annotated-message {"messageType":"error","includeImage":true}'),
      { tempDir: temp.dir },
    );
    expect(isError).toBe(false);
    expect(content[0]).toEqual({ type: 'text', text: 'Error: Operation failed' });
    expect(content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Object.keys(content[1]!).sort()).toEqual(['data', 'mimeType', 'type']);
  });

  it('get-resource-reference (text): an embedded text resource is headed by its uri', () => {
    const { content } = mcpResultToPi(
      everythingResult('get-resource-reference {"resourceType":"Text","resourceId":2}'),
      {
        tempDir: temp.dir,
      },
    );
    expect(texts(content)[1]).toMatch(
      /^\[Resource: demo:\/\/resource\/dynamic\/text\/2\]\nResource 2: This is a plaintext resource created at /,
    );
  });

  it('get-resource-reference (blob): a text/plain blob is decoded inline rather than saved', () => {
    const { content } = mcpResultToPi(
      everythingResult('get-resource-reference {"resourceType":"Blob","resourceId":3}'),
      {
        tempDir: temp.dir,
      },
    );
    expect(texts(content)[1]).toMatch(
      /^\[Resource: demo:\/\/resource\/dynamic\/blob\/3\]\nResource 3: This is a base64 blob created at /,
    );
    expect(readdirSync(temp.dir)).toEqual([]);
  });

  it('an argument error result from the server stays an error result with its text', () => {
    const { content, isError } = mcpResultToPi(everythingResult('echo {"message":42}'), {
      tempDir: temp.dir,
    });
    expect(isError).toBe(true);
    expect(texts(content)[0]).toContain('MCP error -32602: Input validation error');
  });
});

describe('binary content', () => {
  const gzipped = gzipSync(randomBytes(3000));
  const gzipResource = (blob: string): CallToolResult => ({
    content: [
      {
        type: 'resource',
        resource: { uri: 'demo://resource/session/README.md.gz', mimeType: 'application/gzip', blob },
      },
    ],
  });

  it('a binary blob is written to a 0600 file in a 0700 dir and referenced by path, with its size', () => {
    const tempDir = join(temp.dir, 'blobs');
    const { content } = mcpResultToPi(gzipResource(gzipped.toString('base64')), { tempDir });
    const text = texts(content)[0]!;
    expect(text).toMatch(
      /^\[Resource: demo:\/\/resource\/session\/README\.md\.gz\]\nBinary content \(application\/gzip, \d+\.\d KiB, saved to /,
    );
    const [path] = savedPaths(text);
    expect(path).toMatch(/^.*\/blobs\/mcp-blob-[0-9a-f]+\.gz$/);
    expect(readFileSync(path!)).toEqual(gzipped);
    expect(fileMode(path!)).toBe(0o600);
    expect(fileMode(tempDir)).toBe(0o700);
  });

  it('a blob over the size bound is described, not saved, and the text says why', () => {
    const { content } = mcpResultToPi(gzipResource(gzipped.toString('base64')), {
      tempDir: temp.dir,
      maxBlobBytes: 100,
    });
    expect(texts(content)[0]).toContain('KiB, not saved: larger than the 100 B limit for saved content');
    expect(readdirSync(temp.dir)).toEqual([]);
  });

  it('an unwritable temp dir gives a text that says so, and nothing throws', () => {
    const notADir = join(temp.dir, 'file');
    writeFileSync(notADir, 'x');
    const { content } = mcpResultToPi(gzipResource(gzipped.toString('base64')), { tempDir: notADir });
    expect(texts(content)[0]).toMatch(/could not be saved: .*(EEXIST|ENOTDIR)/);
  });

  it('audio becomes a marker with its mime type and the path of the saved file', () => {
    const wav = Buffer.from('RIFF\u0024\u0000\u0000\u0000WAVEfmt fake audio bytes');
    const { content } = mcpResultToPi(
      { content: [{ type: 'audio', data: wav.toString('base64'), mimeType: 'audio/wav' }] },
      { tempDir: temp.dir },
    );
    const text = texts(content)[0]!;
    expect(text).toMatch(/^\[Audio: audio\/wav, \d+ B, saved to \S+\.wav\]$/);
    const [path] = savedPaths(text);
    expect(readFileSync(path!)).toEqual(wav);
    expect(fileMode(path!)).toBe(0o600);
  });

  it('an embedded image blob is shown to the model as an image', () => {
    const png = everythingResult('get-tiny-image {}').content[1] as { data: string };
    const { content } = mcpResultToPi(
      {
        content: [
          { type: 'resource', resource: { uri: 'file:///logo.png', mimeType: 'image/png', blob: png.data } },
        ],
      },
      { tempDir: temp.dir },
    );
    expect(content).toEqual([
      { type: 'text', text: '[Resource: file:///logo.png]' },
      { type: 'image', data: png.data, mimeType: 'image/png' },
    ]);
  });
});

describe('edge cases', () => {
  it('an image without a mime type defaults to image/png', () => {
    const block = { type: 'image', data: 'AAAA' } as unknown as McpContent;
    expect(mcpResultToPi({ content: [block] }, { tempDir: temp.dir }).content).toEqual([
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ]);
  });

  it('an empty result says the tool returned no content; an empty error says so too', () => {
    expect(mcpResultToPi({ content: [] }, { tempDir: temp.dir })).toEqual({
      content: [{ type: 'text', text: 'The tool returned no content.' }],
      isError: false,
    });
    expect(mcpResultToPi({ content: [], isError: true }, { tempDir: temp.dir })).toEqual({
      content: [{ type: 'text', text: 'The tool reported an error without any details.' }],
      isError: true,
    });
  });

  it('a malformed result (no content array) does not throw', () => {
    const { content } = mcpResultToPi({} as CallToolResult, { tempDir: temp.dir });
    expect(texts(content)).toEqual(['The tool returned no content.']);
  });

  it('an unknown content type is named, not dropped', () => {
    const block = { type: 'hologram', frames: 3 } as unknown as McpContent;
    expect(texts(mcpResultToPi({ content: [block] }, { tempDir: temp.dir }).content)).toEqual([
      '[Unsupported content type "hologram"] {"type":"hologram","frames":3}',
    ]);
  });
});

describe('resourceResultToPi', () => {
  it('converts a real text resource read', () => {
    const content = resourceResultToPi(
      everythingResult('readResource demo://resource/static/document/architecture.md'),
      {
        tempDir: temp.dir,
      },
    );
    expect(content).toHaveLength(1);
    expect(texts(content)[0]).toMatch(
      /^\[Resource: demo:\/\/resource\/static\/document\/architecture\.md\]\n# Everything Server/,
    );
  });

  it('converts a real blob resource read', () => {
    const content = resourceResultToPi(everythingResult('readResource demo://resource/dynamic/blob/1'), {
      tempDir: temp.dir,
    });
    expect(texts(content)[0]).toMatch(
      /^\[Resource: demo:\/\/resource\/dynamic\/blob\/1\]\nResource 1: This is a base64 blob/,
    );
  });

  it('a non-UTF-8 blob labelled text/plain is saved instead of decoded', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    const content = resourceResultToPi(
      { contents: [{ uri: 'x://bin', mimeType: 'text/plain', blob: bytes.toString('base64') }] },
      { tempDir: temp.dir },
    );
    const [path] = savedPaths(texts(content)[0]!);
    expect(readFileSync(path!)).toEqual(bytes);
  });

  it('an empty read says so', () => {
    expect(resourceResultToPi({ contents: [] }, { tempDir: temp.dir })).toEqual([
      { type: 'text', text: 'The resource returned no content.' },
    ]);
  });
});
