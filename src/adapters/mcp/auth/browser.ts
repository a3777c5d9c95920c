// Opens the authorization URL in the user's browser when there is one to open (a desktop session).
// Over SSH or headless nothing opens: the URL is always shown in full as well.
//
// The URL comes from a server's metadata, so it is checked before it reaches the OS opener: only
// `https:`, or `http:` to a loopback host, is opened (never `file:`, custom schemes or a LAN host),
// and the opener gets it as one argument with no shell in between on any platform (`cmd /c start`
// would read `&` and `^` in it as commands).

import { spawn } from 'node:child_process';
import { isLoopbackHttp } from './loopback.ts';

/** Whether a sign-in may hand this URL to the OS opener. */
export function openableUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  return url.protocol === 'https:' || isLoopbackHttp(url);
}

/** The opener's command line for this platform, the URL as its last argument; none without a desktop. */
export function openerCommand(
  url: string,
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
): [string, ...string[]] | undefined {
  if (platform === 'darwin') return ['open', url];
  // url.dll's handler takes the URL as it is: no shell parses it.
  if (platform === 'win32') return ['rundll32', 'url.dll,FileProtocolHandler', url];
  return env.DISPLAY || env.WAYLAND_DISPLAY ? ['xdg-open', url] : undefined;
}

export function openBrowser(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (env.PI_MCP_NO_BROWSER || !openableUrl(url)) return false;
  const command = openerCommand(url, platform, env);
  if (!command) return false;
  try {
    const child = spawn(command[0], command.slice(1), { stdio: 'ignore', detached: true, env, shell: false });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
