// The `mcp` gateway (settings.proxyTool) as a Pi tool: the single tool of the older design, for models
// that cope badly with changing tool sets. Loaded only when a session asks for it.

import type { ToolResult } from '../../tools/executor.ts';
import {
  PROXY_TOOL_NAME,
  type ProxyParams,
  proxyToolDescription,
  proxyToolParameters,
  runProxyTool,
} from '../../tools/proxy-tool.ts';
import type { PiHost } from './pi-types.ts';
import type { RunTool } from './tool-registration.ts';

export function registerProxyTool(
  pi: PiHost,
  run: RunTool,
  redactResult: (result: ToolResult) => ToolResult,
): void {
  pi.registerTool({
    name: PROXY_TOOL_NAME,
    label: 'MCP gateway',
    description: proxyToolDescription,
    parameters: proxyToolParameters,
    execute: (_id, params, signal, _onUpdate, toolCtx) =>
      run(toolCtx, signal, (runtime) =>
        runProxyTool(runtime, params as ProxyParams, signal).then(redactResult),
      ),
  });
}
