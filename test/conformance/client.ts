// The client under test for the MCP conformance suite (`scripts/conformance.mjs`), built on the adapter.
// The runner passes the server URL as the last argument and the scenario in MCP_CONFORMANCE_SCENARIO.
// Scenarios: initialize (connect), tools_call (call add_numbers), sse-retry (call the tool; the SDK
// transport resumes the closed SSE stream with GET + Last-Event-ID after the server's `retry:`).

import { connectMcp } from '../../src/adapters/mcp.ts';
import type { ServerDefinition } from '../../src/config/types.ts';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';

const definition: ServerDefinition = {
  name: 'conformance',
  source: { file: 'conformance', kind: 'flag', keyPath: 'conformance' },
  transport: 'http',
  url,
  args: [],
  env: {},
  headers: {},
  lifecycle: 'lazy',
  idleTimeoutMs: 0,
  startupTimeoutMs: 20_000,
  requestTimeoutMs: 20_000,
  exposeResources: false,
  directTools: false,
  excludeTools: [],
  exposure: 'deferred',
  toolExposure: [],
  debug: false,
};

function argumentsFor(tool: { name: string; inputSchema: Record<string, unknown> }): Record<string, unknown> {
  if (tool.name === 'add_numbers') return { a: 5, b: 3 };
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    args[name] =
      schema.type === 'number' || schema.type === 'integer' ? 1 : schema.type === 'boolean' ? true : 'x';
  }
  return args;
}

async function main(): Promise<number> {
  if (!url) {
    console.error('usage: client.ts <server-url>');
    return 2;
  }
  const connection = await connectMcp(definition, { signal: AbortSignal.timeout(25_000) });
  try {
    console.log(`[${scenario}] connected: ${JSON.stringify(connection.catalog.serverInfo)}`);
    if (scenario !== 'initialize') {
      for (const tool of connection.catalog.tools) {
        const result = await connection.callTool(tool.name, argumentsFor(tool));
        console.log(`[${scenario}] ${tool.name} -> ${JSON.stringify(result)}`);
      }
    }
    return 0;
  } finally {
    await connection.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(
      `[${scenario}] failed: ${error instanceof Error ? `${error.name}: ${error.message}` : error}`,
    );
    process.exit(1);
  },
);
