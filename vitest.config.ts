import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each test file runs in its own process with its own in-process twin on random ports.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
