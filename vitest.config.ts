import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each test file runs in its own process with its own in-process twin on random ports.
    pool: 'forks',
    // Three processes on two cores: test files spend much of their time waiting on their twin's
    // I/O and on job polling, so a third keeps both cores busy (measured on this 2-core machine:
    // the suite's wall time 275 s → 226 s, npm test about 4.5 minutes in all).
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
});
