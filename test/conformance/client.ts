// The client under test for the MCP conformance suite (`scripts/conformance.mjs`): the real server
// actor with the real adapter, as the extension uses them (ensureConnected, then calls bracketed by
// CALL_STARTED / CALL_FINISHED).
// The runner passes the server URL as the last argument and the scenario in MCP_CONFORMANCE_SCENARIO.
// Scenarios: initialize (connect), tools_call (call add_numbers), sse-retry (call the tool; the SDK
// transport resumes the closed SSE stream with GET + Last-Event-ID after the server's `retry:`),
// elicitation-sep1034-client-defaults (call the tool; the form is answered with its defaults).

import { createActor } from 'xstate';
import { ensureConnected } from '../../src/actors/ensure-connected.ts';
import { serverLogic } from '../../src/actors/server-actor.ts';
import type { Connector, ToolDescriptor } from '../../src/adapters/mcp/connection-port.ts';
import { connectMcp } from '../../src/adapters/mcp/index.ts';
import { buildCatalog } from '../../src/catalog/catalog.ts';
import { formFields, withDefaults } from '../../src/tools/elicit-form.ts';
import { definition as baseDefinition } from '../support/config.ts';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';

const definition = baseDefinition({
  name: 'conformance',
  transport: 'http',
  url,
  idleTimeoutMs: 0,
  startupTimeoutMs: 20_000,
  requestTimeoutMs: 20_000,
});

function argumentsFor(
  tool: { name: string; inputSchema: Record<string, unknown> },
  tools: ToolDescriptor[],
): Record<string, unknown> {
  if (tool.name === 'add_numbers') return { a: 5, b: 3 };
  // json-schema-2020-12-preservation: echo the focal tool's schema exactly as Pi would be given it.
  if (tool.name === 'json_schema_echo') {
    const catalog = buildCatalog([{ definition, tools }], { toolPrefix: 'none' });
    return { schema: catalog.entries.find((e) => e.tool === 'json_schema_2020_12_tool')?.inputSchema };
  }
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    args[name] =
      schema.type === 'number' || schema.type === 'integer' ? 1 : schema.type === 'boolean' ? true : 'x';
  }
  return args;
}

// The user of this client accepts every form with its defaults (elicitation-sep1034-client-defaults).
const connector: Connector = (def, options) =>
  connectMcp(def, {
    ...options,
    host: {
      elicit: async (request) =>
        request.mode === 'form'
          ? { action: 'accept', content: withDefaults(formFields(request.requestedSchema), {}) }
          : { action: 'decline' },
    },
  });

async function main(): Promise<number> {
  if (!url) {
    console.error('usage: client.ts <server-url>');
    return 2;
  }
  const actor = createActor(serverLogic, {
    input: { definition, generation: 1, connector },
  }).start();
  try {
    const ready = await ensureConnected(actor, { signal: AbortSignal.timeout(25_000) });
    if (!ready.ok) throw new Error(ready.error.message);
    const connection = ready.connection;
    console.log(`[${scenario}] connected: ${JSON.stringify(connection.catalog.serverInfo)}`);
    if (scenario !== 'initialize') {
      for (const tool of connection.catalog.tools) {
        actor.send({ type: 'CALL_STARTED' });
        try {
          const result = await connection.callTool(tool.name, argumentsFor(tool, connection.catalog.tools));
          console.log(`[${scenario}] ${tool.name} -> ${JSON.stringify(result)}`);
        } catch (error) {
          // Like a failed call reaching the model: reported, and the next tool is still called. The
          // scenario's checks decide what a failure means.
          console.log(
            `[${scenario}] ${tool.name} -> failed: ${error instanceof Error ? error.message : error}`,
          );
        } finally {
          actor.send({ type: 'CALL_FINISHED' });
        }
      }
    }
    return 0;
  } finally {
    await actor.getSnapshot().context.connection?.close();
    actor.stop();
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
