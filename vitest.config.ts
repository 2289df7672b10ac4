import { defineConfig } from 'vitest/config';

/**
 * Unit files that need a process of their own: the first two point the process's AWS clients at a
 * server of their own (AWS_ENDPOINT_URL_*), and the clients are made once per module graph; the
 * analyzer's bounds test measures the CPU of the process's engine children, which engine processes
 * left warm by other files would add to.
 */
const UNIT_FILES_IN_OWN_PROCESS = [
  'test/unit/aws/clients.test.ts',
  'test/unit/db/transactions.test.ts',
  'test/unit/engine/analyzer-bounds.test.ts',
];

export default defineConfig({
  test: {
    poolOptions: {
      // Three processes on two cores: test files spend much of their time waiting on their twin's
      // I/O and on job polling, so a third keeps both cores busy (measured on this 2-core machine:
      // the suite's wall time 275 s → 226 s, npm test about 4.5 minutes in all).
      forks: { maxForks: 3, minForks: 1 },
      // Unit files share one module graph: loading it once instead of once per file halves their
      // CPU (48 s → 25 s on this machine), beside the forks.
      threads: { isolate: false, maxThreads: 1, minThreads: 1 },
    },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: UNIT_FILES_IN_OWN_PROCESS,
          pool: 'threads',
        },
      },
      {
        // Each integration file runs in its own process with its own in-process twin on random ports.
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/integration/**/*.test.ts', 'test/infra/**/*.test.ts', ...UNIT_FILES_IN_OWN_PROCESS],
          pool: 'forks',
        },
      },
    ],
  },
});
