// Nothing throws into Pi (DESIGN rule 5): what fails in an event handler, a registration or a command
// is logged, and where the user should know, told.

export interface FailureGuards {
  /** Runs `fn`; a failure is logged. */
  safely(fn: () => void): void;
  /** Runs `fn`; a failure is logged and gives undefined. */
  safelyReturn<T>(fn: () => T): T | undefined;
  /** Awaits `fn`; a failure is logged and told as `MCP: <what> failed: …`. */
  guarded(what: string, fn: () => Promise<void>): Promise<void>;
}

export function failureGuards(
  log: (level: 'error', text: string) => void,
  tellError: (text: string) => void,
): FailureGuards {
  const safelyReturn = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (error) {
      log('error', String(error));
      return undefined;
    }
  };
  const safely = (fn: () => void) => void safelyReturn(fn);
  return {
    safely,
    safelyReturn,
    async guarded(what, fn) {
      try {
        await fn();
      } catch (error) {
        log('error', `${what} failed: ${String(error)}`);
        safely(() => tellError(`MCP: ${what} failed: ${String(error)}`));
      }
    },
  };
}
