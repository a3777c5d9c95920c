// Renders the generated Mermaid charts to SVG once, at build time, so the inspector page draws them
// without shipping Mermaid (about 200 MB installed) to users. Mermaid needs a DOM: it runs in the
// Debian chromium that `npm run provision` installs; Mermaid itself comes from .cache/mermaid
// (scripts/provision-mermaid.mjs, run here when it is missing). Each SVG records the SHA-256 of the
// .mmd text it was drawn from, so `statecharts --check` can tell a stale drawing without a browser.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { mermaidPaths, mermaidProvisioned, repoRoot } from './mermaid-paths.mjs';

/** The id Mermaid gives the drawing; the inspector page swaps it for one id per card. */
export const SVG_RENDER_ID = 'pimcpchart0';
const CHROMIUM_PATH = '/usr/bin/chromium';

export function mermaidSourceHash(mermaidText: string): string {
  return createHash('sha256').update(mermaidText).digest('hex');
}

const HASH_ATTRIBUTE = /^<svg [^>]*data-source-sha256="([0-9a-f]{64})"/;

/** The hash an SVG says it was drawn from, if any. */
export function svgSourceHash(svgText: string): string | undefined {
  return HASH_ATTRIBUTE.exec(svgText)?.[1];
}

/** A fresh clone runs `npm run statecharts` without `npm run provision`: install Mermaid then. */
function ensureMermaid(): void {
  if (mermaidProvisioned()) return;
  const script = join(repoRoot, 'scripts', 'provision-mermaid.mjs');
  const result = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`Mermaid is needed to draw the charts: node ${script} failed`);
}

/** Mermaid source texts → SVG texts, in order. */
export async function renderSvgs(sources: string[]): Promise<string[]> {
  if (sources.length === 0) return [];
  ensureMermaid();
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addScriptTag({ path: mermaidPaths.browserBundle });
    const svgs: string[] = [];
    for (const source of sources) {
      const svg = await page.evaluate(
        async ([text, id]) => {
          const mermaid = (globalThis as any).mermaid;
          mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: 'default' });
          return (await mermaid.render(id, text)).svg as string;
        },
        [source, SVG_RENDER_ID] as const,
      );
      svgs.push(svg.replace(/^<svg /, `<svg data-source-sha256="${mermaidSourceHash(source)}" `));
    }
    return svgs;
  } finally {
    await browser.close();
  }
}
