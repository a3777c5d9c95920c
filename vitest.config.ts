import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Temp folders per run, and no shared host left behind by any test (test/support/no-host-left.ts).
    globalSetup: ['test/support/no-host-left.ts'],
  },
});
