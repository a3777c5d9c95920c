// The client under test for the MCP conformance suite (`scripts/conformance.mjs`): the real server
// actor with the real adapter, as the extension uses them (ensureConnected, then calls bracketed by
// CALL_STARTED / CALL_FINISHED).
// The runner passes the server URL as the last argument and the scenario in MCP_CONFORMANCE_SCENARIO.
// Scenarios: initialize (connect), tools_call (call add_numbers), sse-retry (call the tool; the SDK
// transport resumes the closed SSE stream with GET + Last-Event-ID after the server's `retry:`),
// elicitation-sep1034-client-defaults (call the tool; the form is answered with its defaults).
// auth/*: the server answers 401; the actor parks in needs-auth and the client signs in as a user
// would run /mcp-auth (our sign-in flow, the loopback callback; the suite's authorization server
// approves at once, so "the browser" is a GET of the URL that follows the redirect), then the actor
// wakes from the sign-in store and connects (the sign-in probes initialize, then tools/list, for the
// scope a 401 names). A call answered 403 insufficient_scope is a step-up:
// sign in again (at most 3 sign-ins in all), then call again.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, waitFor } from 'xstate';
import { serverLogicWith } from '../../src/actors/server-actor.ts';
import { signInServer } from '../../src/adapters/mcp/auth/sign-in.ts';
import { createMcpConnector } from '../../src/adapters/mcp/index.ts';
import { createTokenStore } from '../../src/auth/token-store.ts';
import { buildCatalog } from '../../src/catalog/catalog.ts';
import type { OAuthConfig } from '../../src/config/types.ts';
import type { Connector } from '../../src/machines/server-types.ts';
import type { ToolDescriptor } from '../../src/ports/mcp.ts';
import { ensureConnected } from '../../src/session/ensure-connected.ts';
import { formFields, withDefaults } from '../../src/tools/elicit-form.ts';
import { definition as baseDefinition } from '../support/config.ts';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string>;
const MAX_SIGN_INS = 3;

/** The `oauth` block a user would write for this scenario. */
function oauthConfig(): OAuthConfig {
  const oauth: OAuthConfig = { grantType: 'authorization_code' };
  if (scenario === 'auth/basic-cimd')
    oauth.clientMetadataUrl = 'https://conformance-test.local/client-metadata.json';
  if (context.client_id) oauth.clientId = context.client_id;
  if (context.client_secret) oauth.clientSecret = context.client_secret;
  if (context.private_key_pem) oauth.privateKey = context.private_key_pem;
  if (context.signing_algorithm) oauth.signingAlgorithm = context.signing_algorithm;
  if (scenario.startsWith('auth/client-credentials')) oauth.grantType = 'client_credentials';
  // SEP-1932: DPoP when the authorization server offers it.
  if (scenario.startsWith('auth/dpop')) oauth.dpop = true;
  // The identity token as a workload gets it: from its environment.
  const identityToken = context.valid_jwt ?? context.idp_id_token;
  if (identityToken) {
    process.env.CONFORMANCE_IDENTITY_TOKEN = identityToken;
    oauth.grantType = 'jwt-bearer';
    oauth.identityToken = { env: 'CONFORMANCE_IDENTITY_TOKEN' };
  }
  // Enterprise-managed authorization: the ID token is exchanged at the IdP for an ID-JAG first.
  if (context.idp_token_endpoint && context.idp_client_id)
    oauth.tokenExchange = { tokenEndpoint: context.idp_token_endpoint, clientId: context.idp_client_id };
  return oauth;
}

const definition = baseDefinition({
  name: 'conformance',
  transport: 'http',
  url,
  idleTimeoutMs: 0,
  startupTimeoutMs: 20_000,
  requestTimeoutMs: 20_000,
  ...(scenario.startsWith('auth/') ? { auth: 'oauth' as const, oauth: oauthConfig() } : {}),
});
const agentDir = mkdtempSync(join(tmpdir(), 'conformance-auth-'));
const store = createTokenStore({ agentDir, piAuthFile: false });
let signIns = 0;

/** What a user does after /mcp-auth shows the URL: open it; the browser follows the redirect home. */
async function signIn(): Promise<void> {
  if (++signIns > MAX_SIGN_INS) throw new Error(`gave up after ${MAX_SIGN_INS} sign-ins`);
  const result = await signInServer(
    definition,
    store,
    {
      showUrl: (authorizationUrl) => {
        void (async () => {
          const approve = await fetch(authorizationUrl, { redirect: 'manual' });
          const location = approve.headers.get('location');
          if (location) await (await fetch(location)).text();
        })().catch(() => undefined);
      },
    },
    { env: { PI_MCP_NO_BROWSER: '1' }, timeoutMs: 15_000 },
  );
  console.log(`[${scenario}] sign-in: ${result.message}`);
  if (!result.ok) throw new Error(result.message);
}

/** Calls a scenario names in its context (`toolCalls`): the arguments it wants sent. */
const contextCalls = new Map(
  (
    (context as { toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }> }).toolCalls ?? []
  ).map((call) => [call.name, call.arguments]),
);

function argumentsFor(
  tool: { name: string; inputSchema: Record<string, unknown> },
  tools: ToolDescriptor[],
): Record<string, unknown> {
  const given = contextCalls.get(tool.name);
  if (given) return given;
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
const mcpConnector = createMcpConnector({ tokenStore: store });
const connector: Connector = (def, options) =>
  mcpConnector(def, {
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
  const actor = createActor(serverLogicWith({ store, signIn: (def, io) => signInServer(def, store, io) }), {
    input: { definition, generation: 1, connector },
  }).start();
  try {
    let ready = await ensureConnected(actor, { signal: AbortSignal.timeout(25_000) });
    // A server may ask again, for more scope (2026-07-28: already when asked which protocol it speaks).
    while (!ready.ok && ready.error.kind === 'needs-auth') {
      console.log(`[${scenario}] needs auth: ${ready.error.lastError}`);
      await signIn();
      // The sign-in store wakes the actor (needs-auth → connecting) by itself.
      await waitFor(actor, (s) => !s.matches('needsAuth'), { timeout: 10_000 });
      ready = await ensureConnected(actor, { signal: AbortSignal.timeout(25_000) });
    }
    if (!ready.ok) throw new Error(ready.error.message);
    let connection = ready.connection;
    console.log(`[${scenario}] connected: ${JSON.stringify(connection.catalog.serverInfo)}`);
    if (scenario !== 'initialize') {
      for (const tool of connection.catalog.tools) {
        actor.send({ type: 'CALL_STARTED' });
        try {
          for (;;) {
            try {
              const result = await connection.callTool(
                tool.name,
                argumentsFor(tool, connection.catalog.tools),
              );
              console.log(`[${scenario}] ${tool.name} -> ${JSON.stringify(result)}`);
              break;
            } catch (error) {
              if ((error as { kind?: string }).kind !== 'auth') throw error;
              console.log(`[${scenario}] ${tool.name}: ${(error as Error).message}`);
              await signIn();
              // A connection that lost its authorization is closed; the actor opens a new one.
              actor.send({ type: 'RETRY' });
              const again = await ensureConnected(actor, { signal: AbortSignal.timeout(25_000) });
              if (!again.ok) throw new Error(again.error.message);
              connection = again.connection;
            }
          }
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
    rmSync(agentDir, { recursive: true, force: true });
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
