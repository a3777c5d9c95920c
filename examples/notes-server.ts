// A small MCP server for notes, bundled as the example for pi-mcp-actors (and used by `npm run demo`).
// Stdio transport, written with the MCP SDK's server API. Notes live in one JSON file:
// $NOTES_FILE, else ~/.pi/notes.json. Run it with: node --import tsx examples/notes-server.ts
//
// Tools: add_note, list_notes, search_notes, delete_note, word_count.

import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

interface Note {
  id: number;
  title: string;
  text: string;
  tags: string[];
  created: string;
}

const NOTES_FILE = process.env.NOTES_FILE || join(homedir(), '.pi', 'notes.json');

const tools = [
  {
    name: 'add_note',
    description: 'Save a note with a title, text and optional tags. Returns the new note id.',
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, description: 'Short title' },
        text: { type: 'string', description: 'The note itself' },
        tags: { type: 'array', items: { type: 'string' }, description: 'Optional tags, e.g. ["todo"]' },
      },
      required: ['title', 'text'],
    },
  },
  {
    name: 'list_notes',
    description: 'List saved notes (id, title, tags, date), newest first; optionally only those with a tag.',
    inputSchema: {
      type: 'object',
      properties: { tag: { type: 'string', description: 'Only notes with this tag' } },
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'search_notes',
    description: 'Find notes whose title, text or tags contain every word of the query (case-insensitive).',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', minLength: 1, description: 'Words to look for' } },
      required: ['query'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'delete_note',
    description: 'Delete a note by id.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'integer', minimum: 1, description: 'The note id' } },
      required: ['id'],
    },
    annotations: { destructiveHint: true },
  },
  {
    name: 'word_count',
    description: 'Count words, characters and lines of a text, or of a saved note given its id.',
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'Text to count' },
        id: { type: 'integer', minimum: 1, description: 'Or: the id of a saved note' },
      },
    },
    annotations: { readOnlyHint: true },
  },
];

function readNotes(): Note[] {
  let raw: string;
  try {
    raw = readFileSync(NOTES_FILE, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = JSON.parse(raw) as { notes?: Note[] };
  return Array.isArray(parsed.notes) ? parsed.notes : [];
}

/** Written to a temp file and renamed, so a crash never leaves half a notes file. */
function writeNotes(notes: Note[]): void {
  mkdirSync(dirname(NOTES_FILE), { recursive: true });
  const temp = `${NOTES_FILE}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ notes }, null, 2)}\n`);
  renameSync(temp, NOTES_FILE);
}

const ok = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });
const fail = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function counts(text: string): string {
  const lines = text === '' ? 0 : text.split('\n').length;
  return `${plural(words(text).length, 'word')}, ${plural([...text].length, 'character')}, ${plural(lines, 'line')}`;
}

function summary(note: Note): string {
  const tags = note.tags.length > 0 ? ` [${note.tags.join(', ')}]` : '';
  return `#${note.id} ${note.title}${tags} (${note.created.slice(0, 10)})`;
}

function stringArg(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  return typeof value === 'string' ? value : undefined;
}

function idArg(args: Record<string, unknown>): number | undefined {
  const value = args.id;
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function run(name: string, args: Record<string, unknown>): CallToolResult {
  switch (name) {
    case 'add_note': {
      const title = stringArg(args, 'title')?.trim();
      const text = stringArg(args, 'text');
      if (!title || text === undefined)
        return fail('add_note needs a non-empty "title" and a "text" (strings).');
      const tags = Array.isArray(args.tags)
        ? args.tags.filter((t): t is string => typeof t === 'string')
        : [];
      const notes = readNotes();
      const note: Note = {
        id: Math.max(0, ...notes.map((n) => n.id)) + 1,
        title,
        text,
        tags,
        created: new Date().toISOString(),
      };
      writeNotes([...notes, note]);
      return ok(`Saved note #${note.id} "${note.title}" (${plural(words(text).length, 'word')}).`);
    }
    case 'list_notes': {
      const tag = stringArg(args, 'tag');
      const notes = readNotes()
        .filter((n) => !tag || n.tags.includes(tag))
        .reverse();
      if (notes.length === 0) return ok(tag ? `No notes tagged "${tag}".` : 'No notes yet.');
      return ok(notes.map(summary).join('\n'));
    }
    case 'search_notes': {
      const query = stringArg(args, 'query')?.trim();
      if (!query) return fail('search_notes needs a non-empty "query".');
      const terms = words(query.toLowerCase());
      const hits = readNotes().filter((n) => {
        const haystack = `${n.title}\n${n.text}\n${n.tags.join(' ')}`.toLowerCase();
        return terms.every((t) => haystack.includes(t));
      });
      if (hits.length === 0) return ok(`No note matches "${query}".`);
      return ok(hits.map((n) => `${summary(n)}: ${n.text.slice(0, 120)}`).join('\n'));
    }
    case 'delete_note': {
      const id = idArg(args);
      if (id === undefined) return fail('delete_note needs "id", a positive integer.');
      const notes = readNotes();
      if (!notes.some((n) => n.id === id)) return fail(`There is no note #${id}; list_notes shows the ids.`);
      writeNotes(notes.filter((n) => n.id !== id));
      return ok(`Deleted note #${id}.`);
    }
    case 'word_count': {
      const text = stringArg(args, 'text');
      if (text !== undefined) return ok(counts(text));
      const id = idArg(args);
      if (id === undefined) return fail('word_count needs "text" (a string) or "id" (a note id).');
      const note = readNotes().find((n) => n.id === id);
      return note ? ok(`Note #${id}: ${counts(note.text)}`) : fail(`There is no note #${id}.`);
    }
    default:
      return fail(`Unknown tool "${name}".`);
  }
}

const server = new Server(
  { name: 'notes', version: '1.0.0', title: 'Notes' },
  { capabilities: { tools: {} }, instructions: `Notes are stored in ${NOTES_FILE}.` },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  try {
    return run(request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>);
  } catch (error) {
    return fail(
      `The notes file ${NOTES_FILE} could not be used: ${error instanceof Error ? error.message : error}`,
    );
  }
});

await server.connect(new StdioServerTransport());
