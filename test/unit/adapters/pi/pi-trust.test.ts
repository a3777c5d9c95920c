// Which of Pi's "trusted" answers are decisions (and count as consent to run project servers) and which
// is Pi's default for a folder it never asks about (issue 23).

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { piTrustIsExplicit } from '../../../../src/adapters/pi/pi-trust.ts';

let root: string;
let home: string;
let agentDir: string;
let project: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'pi-trust-')));
  home = join(root, 'home');
  agentDir = join(home, '.pi', 'agent');
  project = join(root, 'work', 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, '.mcp.json'), '{"mcpServers":{}}');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const explicit = (argv: string[] = ['node', 'pi']) =>
  piTrustIsExplicit({ cwd: project, agentDir, homeDir: home, argv });

describe("Pi's trust", () => {
  it('is only a default for a folder with nothing Pi asks about (.mcp.json is not one)', () => {
    expect(explicit()).toBe(false);
  });

  it('is a decision with --approve / -a', () => {
    expect(explicit(['node', 'pi', '--approve'])).toBe(true);
    expect(explicit(['node', 'pi', '-a', '-p', 'hi'])).toBe(true);
  });

  it("is a decision when remembered in Pi's trust store for exactly this folder", () => {
    writeFileSync(join(agentDir, 'trust.json'), JSON.stringify({ [project]: true }));
    expect(explicit()).toBe(true);
    writeFileSync(join(agentDir, 'trust.json'), JSON.stringify({ [project]: false }));
    expect(explicit()).toBe(false);
  });

  it('is no decision when Pi\'s trust store remembers a parent (its "Trust parent folder")', () => {
    writeFileSync(join(agentDir, 'trust.json'), JSON.stringify({ [join(root, 'work')]: true }));
    expect(explicit()).toBe(false);
    // Not even where Pi would otherwise ask: it applies the parent's answer to this folder without asking.
    mkdirSync(join(project, '.pi'));
    writeFileSync(join(project, '.pi', 'mcp.json'), '{}');
    expect(explicit()).toBe(false);
    // The folder's own answer is nearer than the parent's.
    writeFileSync(
      join(agentDir, 'trust.json'),
      JSON.stringify({ [join(root, 'work')]: true, [project]: true }),
    );
    expect(explicit()).toBe(true);
  });

  it('is a decision when Pi asks about the folder (.pi resources, .agents/skills above it)', () => {
    mkdirSync(join(project, '.pi'));
    expect(explicit()).toBe(false);
    writeFileSync(join(project, '.pi', 'mcp.json'), '{}');
    expect(explicit()).toBe(true);
    rmSync(join(project, '.pi'), { recursive: true });
    mkdirSync(join(root, 'work', '.agents', 'skills'), { recursive: true });
    expect(explicit()).toBe(true);
  });

  it("is not a decision because of the user's own ~/.agents/skills", () => {
    mkdirSync(join(home, '.agents', 'skills'), { recursive: true });
    expect(piTrustIsExplicit({ cwd: join(home, 'repo'), agentDir, homeDir: home, argv: [] })).toBe(false);
  });

  it('a trust store that does not parse is no decision', () => {
    writeFileSync(join(agentDir, 'trust.json'), 'not json');
    expect(explicit()).toBe(false);
  });
});
