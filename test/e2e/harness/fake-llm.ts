// A scripted OpenAI-compatible model: `POST /v1/chat/completions` answered as SSE, one script step per
// request, every request body recorded. In-process, 127.0.0.1, ephemeral port.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptToolCall {
  /** Defaults to `call_<request index>_<position>`. */
  id?: string;
  name: string;
  /** An object is JSON-encoded; a string is sent as is (to test malformed arguments). */
  arguments?: Record<string, unknown> | string;
}

export type ScriptStep =
  /** Assistant text, finish_reason "stop" (or tool calls after the text when both are given). */
  | { text: string; toolCalls?: ScriptToolCall[] }
  /** Tool calls, finish_reason "tool_calls". */
  | { toolCalls: ScriptToolCall[]; text?: string }
  /** An HTTP error with this status (Pi exits 1 on a 4xx in print mode; keep retries off). */
  | { status: number; body?: unknown };

/** Decide the step from the request, e.g. call the tool that ToolSearch just returned. */
export type StepFunction = (body: ChatRequestBody, index: number) => ScriptStep | Promise<ScriptStep>;
export type Script = (ScriptStep | StepFunction)[] | StepFunction;

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: unknown;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [key: string]: unknown;
}
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  stream?: boolean;
  [key: string]: unknown;
}

export interface RecordedRequest {
  index: number;
  body: ChatRequestBody;
  /** The step that answered it (after a StepFunction ran). */
  step?: ScriptStep;
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>/v1`, what models.json needs. */
  readonly baseUrl: string;
  readonly port: number;
  /** Every chat-completions request so far, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Problems the server met (script exhausted, step function threw, unexpected path). */
  readonly errors: readonly string[];
  /** Resolves when request `index` (0-based) has arrived; rejects after `timeoutMs` or on close. */
  waitForRequest(index: number, opts?: { timeoutMs?: number }): Promise<RecordedRequest>;
  /** Appends steps, e.g. before a second RPC prompt. */
  push(...steps: (ScriptStep | StepFunction)[]): void;
  close(): Promise<void>;
}

export interface FakeLlmOptions {
  script: Script;
  /** Answer for requests past the end of an array script; default: HTTP 400 naming the problem. */
  onExhausted?: ScriptStep;
}

/** Names of the tools a request declares to the model, in order. */
export function toolNames(body: ChatRequestBody): string[] {
  return (body.tools ?? []).map((t) => t.function.name);
}

/** The declared tool of that name (its full JSON schema is `.function.parameters`). */
export function toolDeclaration(body: ChatRequestBody, name: string): ChatTool | undefined {
  return (body.tools ?? []).find((t) => t.function.name === name);
}

/** `role: "tool"` messages of a request: the tool results the model gets to read. */
export function toolResultMessages(body: ChatRequestBody): { toolCallId: string; content: string }[] {
  return body.messages
    .filter((m) => m.role === 'tool')
    .map((m) => ({ toolCallId: String(m.tool_call_id), content: messageText(m.content) }));
}

/** The text of a message's content, whether a string or an array of parts. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('');
  }
  return '';
}

const DEFAULT_WAIT_MS = 20_000;

export async function startFakeLlm(options: FakeLlmOptions): Promise<FakeLlm> {
  const steps: (ScriptStep | StepFunction)[] = Array.isArray(options.script) ? [...options.script] : [];
  const stepFunction = Array.isArray(options.script) ? undefined : options.script;
  const requests: RecordedRequest[] = [];
  const errors: string[] = [];
  const waiters = new Set<{ index: number; resolve(r: RecordedRequest): void; reject(e: Error): void }>();
  let closed = false;

  async function stepFor(body: ChatRequestBody, index: number): Promise<ScriptStep> {
    const entry = stepFunction ?? steps[index];
    if (entry === undefined) {
      if (options.onExhausted) return options.onExhausted;
      const msg = `fake-llm: script exhausted: no step for request ${index} (script has ${steps.length})`;
      errors.push(msg);
      return { status: 400, body: { error: { message: msg, type: 'invalid_request_error' } } };
    }
    if (typeof entry !== 'function') return entry;
    try {
      return await entry(body, index);
    } catch (e) {
      const msg = `fake-llm: step function for request ${index} threw: ${e instanceof Error ? e.message : e}`;
      errors.push(msg);
      return { status: 400, body: { error: { message: msg, type: 'invalid_request_error' } } };
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      errors.push(`fake-llm: unexpected ${req.method} ${req.url}`);
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    let body: ChatRequestBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (e) {
      errors.push(`fake-llm: request body is not JSON: ${e}`);
      res.writeHead(400).end();
      return;
    }
    const recorded: RecordedRequest = { index: requests.length, body };
    requests.push(recorded);
    for (const w of waiters) {
      if (w.index === recorded.index) {
        waiters.delete(w);
        w.resolve(recorded);
      }
    }
    const step = await stepFor(body, recorded.index);
    recorded.step = step;
    writeStep(res, step, recorded.index, body.model);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      errors.push(`fake-llm: handler failed: ${e}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    errors,
    waitForRequest(index, opts = {}) {
      const existing = requests[index];
      if (existing) return Promise.resolve(existing);
      if (closed) return Promise.reject(new Error(`fake-llm closed before request ${index}`));
      const timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_MS;
      return new Promise<RecordedRequest>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(
              `fake-llm: request ${index} did not arrive within ${timeoutMs} ms (got ${requests.length})`,
            ),
          );
        }, timeoutMs);
        const waiter = {
          index,
          resolve: (r: RecordedRequest) => {
            clearTimeout(timer);
            resolve(r);
          },
          reject: (e: Error) => {
            clearTimeout(timer);
            reject(e);
          },
        };
        waiters.add(waiter);
      });
    },
    push(...more) {
      if (stepFunction) throw new Error('fake-llm: push() needs an array script');
      steps.push(...more);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const w of waiters) w.reject(new Error(`fake-llm closed before request ${w.index}`));
      waiters.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function writeStep(res: ServerResponse, step: ScriptStep, index: number, model: string): void {
  if ('status' in step) {
    const payload = step.body ?? { error: { message: `fake-llm: scripted status ${step.status}` } };
    res
      .writeHead(step.status, { 'content-type': 'application/json' })
      .end(typeof payload === 'string' ? payload : JSON.stringify(payload));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = `chatcmpl-fake-${index}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choice: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) =>
    res.write(
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: choice ? [{ index: 0, ...choice }] : [],
        ...extra,
      })}\n\n`,
    );
  chunk({ delta: { role: 'assistant', content: '' }, finish_reason: null });
  if (step.text) chunk({ delta: { content: step.text }, finish_reason: null });
  const calls = step.toolCalls ?? [];
  calls.forEach((call, i) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
    chunk({
      delta: {
        tool_calls: [
          {
            index: i,
            id: call.id ?? `call_${index}_${i}`,
            type: 'function',
            function: { name: call.name, arguments: args },
          },
        ],
      },
      finish_reason: null,
    });
  });
  chunk({ delta: {}, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' });
  chunk(undefined, { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  res.end('data: [DONE]\n\n');
}
