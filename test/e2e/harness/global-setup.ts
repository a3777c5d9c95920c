// Optional vitest globalSetup: provision Pi once before any e2e worker starts.
// Wire it with `test.globalSetup: ['test/e2e/harness/global-setup.ts']`; the e2e tests also call
// ensurePi() in beforeAll, so they work without it.
import { ensurePi } from './ensure-pi.ts';

export default async function setup(): Promise<void> {
  await ensurePi();
}
