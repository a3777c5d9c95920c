// The sign-in port: what the runtime, /mcp-auth and the CLI know about signing in. Types only;
// src/adapters/mcp/auth/ implements it on the MCP SDK.

import type { ServerDefinition } from '../config/types.ts';
import type { TokenStore } from './token-store.ts';

export interface SignInIo {
  /** Shows the authorization URL, in full; `opened` says whether a browser was started with it. */
  showUrl(url: string, opened: boolean): void;
  /** Asks for the URL the browser was redirected to (SSH, headless); aborted when the loopback wins. */
  pasteRedirectUrl?(signal: AbortSignal): Promise<string | undefined>;
  signal?: AbortSignal;
}

export interface SignInResult {
  ok: boolean;
  message: string;
}

export interface AuthPort {
  store: TokenStore;
  signIn(def: ServerDefinition, io: SignInIo): Promise<SignInResult>;
  signOut(def: ServerDefinition): Promise<SignInResult>;
}
