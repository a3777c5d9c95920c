// Opens the authorization URL in the user's browser when there is one to open (a desktop session).
// Over SSH or headless nothing opens: the URL is always shown in full as well.

import { spawn } from 'node:child_process';

export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.PI_MCP_NO_BROWSER) return false;
  const command =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""', url]
        : env.DISPLAY || env.WAYLAND_DISPLAY
          ? ['xdg-open', url]
          : undefined;
  if (!command) return false;
  try {
    const child = spawn(command[0]!, command.slice(1), { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
