// Real config files of each client, laid out in a temporary home and project directory.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LoadOptions, loadConfig } from '../../../src/config/load.ts';
import type { Diagnostic, LoadedConfig, ServerDefinition } from '../../../src/config/types.ts';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/config');

/** A fixture's text; the project path the fixtures assume (`/work/project`) is replaced by `project`. */
export function fixture(name: string, project?: string): string {
  const text = readFileSync(join(FIXTURES, name), 'utf8');
  return project === undefined ? text : text.replaceAll('/work/project', project);
}

export interface Layout {
  root: string;
  home: string;
  project: string;
  agentDir: string;
  /** Writes files; keys are relative to the layout root (`home/...` or `project/...`). */
  write(files: Record<string, string>): void;
  load(options?: Partial<LoadOptions>): LoadedConfig;
  cleanup(): void;
}

const layouts: Layout[] = [];

export function layout(files: Record<string, string> = {}): Layout {
  const root = mkdtempSync(join(tmpdir(), 'pi-mcp-config-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const agentDir = join(home, '.pi', 'agent');
  const result: Layout = {
    root,
    home,
    project,
    agentDir,
    write(more) {
      for (const [relative, text] of Object.entries(more)) {
        const path = join(root, relative);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
      }
    },
    load(options = {}) {
      return loadConfig({
        agentDir,
        cwd: project,
        homeDir: home,
        env: { HOME: home },
        projectTrusted: true,
        platform: 'linux',
        ...options,
      });
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  result.write(files);
  layouts.push(result);
  return result;
}

export function cleanupLayouts(): void {
  for (const entry of layouts.splice(0)) entry.cleanup();
}

/** loadConfig over in-memory files (absolute paths), for the many small cases. */
export function loadMemory(files: Record<string, string>, options: Partial<LoadOptions> = {}): LoadedConfig {
  return loadConfig({
    agentDir: '/home/u/.pi/agent',
    cwd: '/work/app',
    homeDir: '/home/u',
    env: {},
    projectTrusted: true,
    platform: 'linux',
    readFile: (path) => (Object.hasOwn(files, path) ? files[path] : undefined),
    ...options,
  });
}

export const USER_FILE = '/home/u/.pi/agent/mcp.json';
export const PROJECT_FILE = '/work/app/.pi/mcp.json';
export const CLAUDE_PROJECT_FILE = '/work/app/.mcp.json';

export function server(config: LoadedConfig, name: string): ServerDefinition {
  const found = config.servers.find((entry) => entry.name === name);
  if (found === undefined) {
    const known = config.servers.map((entry) => entry.name).join(', ');
    const skipped = config.skipped.map((entry) => `${entry.name}: ${entry.reason}`).join('; ');
    throw new Error(`no server "${name}" (servers: ${known}; skipped: ${skipped})`);
  }
  return found;
}

export function names(config: LoadedConfig): string[] {
  return config.servers.map((entry) => entry.name);
}

export function skippedReason(config: LoadedConfig, name: string): string | undefined {
  return config.skipped.find((entry) => entry.name === name)?.reason;
}

export function withCode(config: LoadedConfig, code: string): Diagnostic[] {
  return config.diagnostics.filter((entry) => entry.code === code);
}
