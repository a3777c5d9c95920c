import { findPhrases } from './concepts.ts';
import { isContentWord, splitWords, stem } from './tokenize.ts';

/** The searchable text of one tool. */
export interface ToolText {
  server: string;
  tool: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  serverDescription?: string;
  /** Extra words configured for the tool (`searchKeywords`). */
  keywords?: string[];
}

export const FIELD_KEYS = [
  'name',
  'title',
  'server',
  'lead',
  'body',
  'params',
  'paramText',
  'keywords',
] as const;
export type FieldKey = (typeof FIELD_KEYS)[number];
export type FieldTerms = Record<FieldKey, string[]>;

const MAX_DESCRIPTION_CHARS = 4_000;
const MAX_LEAD_CHARS = 240;

/** Stemmed content terms of a text in order, followed by the phrase terms it contains. */
export function analyze(text: string | undefined): string[] {
  if (!text) return [];
  const words = splitWords(text);
  const stems = words.map(stem);
  const terms: string[] = [];
  for (let i = 0; i < words.length; i++) if (isContentWord(words[i]!)) terms.push(stems[i]!);
  for (const phrase of findPhrases(stems)) terms.push(phrase.term);
  return terms;
}

/** Code blocks (usage examples) and markup repeat other tools' names and parameters: noise. */
function stripNoise(description: string): string {
  return description
    .slice(0, MAX_DESCRIPTION_CHARS)
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .replace(/<[^>]{1,200}>/g, ' ');
}

const MIN_LEAD_CHARS = 20;

/** The first sentence nearly always says what the tool does; the rest is detail. */
export function splitLead(description: string): [string, string] {
  const text = description.trim();
  let cut = Math.min(text.length, MAX_LEAD_CHARS);
  for (let i = MIN_LEAD_CHARS; i < cut; i++) {
    const c = text[i];
    if (
      c === '\n' ||
      ((c === '.' || c === '!' || c === '?') && (i + 1 === text.length || /\s/.test(text[i + 1]!)))
    ) {
      cut = i + 1;
      break;
    }
  }
  return [text.slice(0, cut), text.slice(cut)];
}

export interface SchemaText {
  names: string[];
  text: string[];
}

function collectSchema(schema: unknown, out: SchemaText, depth: number): void {
  if (!schema || typeof schema !== 'object' || depth > 3) return;
  const node = schema as Record<string, unknown>;
  const properties = node.properties;
  if (properties && typeof properties === 'object') {
    for (const [name, value] of Object.entries(properties as Record<string, unknown>).slice(0, 100)) {
      out.names.push(name);
      if (!value || typeof value !== 'object') continue;
      const prop = value as Record<string, unknown>;
      if (typeof prop.description === 'string') out.text.push(prop.description.slice(0, 500));
      if (Array.isArray(prop.enum)) {
        for (const v of prop.enum.slice(0, 30)) if (typeof v === 'string') out.names.push(v);
      }
      collectSchema(prop, out, depth + 1);
    }
  }
  if (node.items) collectSchema(node.items, out, depth + 1);
}

/** Parameter names (and enum values) and parameter descriptions of an input schema. */
export function schemaText(inputSchema: unknown): SchemaText {
  const schema: SchemaText = { names: [], text: [] };
  collectSchema(inputSchema, schema, 0);
  return schema;
}

/** A tool's description without code blocks and markup, split into its first sentence and the rest. */
export function descriptionParts(description: unknown): [string, string] {
  return splitLead(stripNoise(typeof description === 'string' ? description : ''));
}

export function toolFields(doc: ToolText): FieldTerms {
  const name = analyze(doc.tool);
  const inName = new Set(name);
  const [lead, body] = descriptionParts(doc.description);
  const schema = schemaText(doc.inputSchema);
  return {
    name,
    // The title mostly repeats the name; only its new words count, so titled tools get no double credit.
    title: analyze(doc.title).filter((t) => !inName.has(t)),
    server: [...analyze(doc.server), ...analyze(doc.serverDescription)],
    lead: analyze(lead),
    body: analyze(body),
    params: analyze(schema.names.join(' ')),
    paramText: analyze(schema.text.join(' \n ')),
    keywords: analyze((doc.keywords ?? []).join(' \n ')),
  };
}
