// The `approveTools` question through Pi's select dialog. One dialog at a time (parallel calls wait
// their turn); without UI (print, JSON, no dialogs) nobody can be asked and the call fails closed.

import { plainText } from '../../terminal-text.ts';
import type { ApprovalAnswer, AskApproval } from '../../tools/approval.ts';
import type { PiContext, PiDialogs } from './pi-types.ts';

export const APPROVAL_CHOICES: Record<string, ApprovalAnswer> = {
  'Allow once': 'once',
  'Allow for this session': 'session',
  'Allow this server for this session': 'server',
  Deny: 'deny',
};

export function createToolApprover(currentContext: () => PiContext | undefined): AskApproval {
  let queue: Promise<unknown> = Promise.resolve();
  return (request, signal) => {
    const run = queue.then(async (): Promise<ApprovalAnswer> => {
      const ctx = currentContext();
      const interactive = ctx?.hasUI && ctx.mode !== 'print' && ctx.mode !== 'json';
      const ui = interactive && typeof ctx.ui.select === 'function' ? (ctx.ui as PiDialogs) : undefined;
      if (!ui) return 'no-ui';
      const what = request.kind === 'tool' ? 'run' : 'read';
      const choice = await ui.select(
        `MCP server "${request.server}" tool ${request.tool} wants to ${what} (approveTools). Allow it?\n${plainText(request.preview, 400)}`,
        Object.keys(APPROVAL_CHOICES),
        signal ? { signal } : {},
      );
      return (choice !== undefined && APPROVAL_CHOICES[choice]) || 'deny';
    });
    queue = run.catch(() => undefined);
    return run;
  };
}
