import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/slow-first-sequencer';

/**
 * Two pools, each sharing its module graph between the files it runs (`isolate: false`): loading
 * the service's modules once per process instead of once per file is most of what a file used to
 * cost beyond its own tests. Integration files each start a twin of their own on new ports; what a
 * warm function keeps of its stores is made again for each twin (shared/aws/per-stores.ts).
 * Measured on this 2-core machine, quiet: vitest's CPU 618 s → 382 s, its wall time 317 s → 200 s.
 */
/**
 * Unit files that run with the forks: two start servers of their own for the process's AWS
 * clients, and the analyzer's bounds test measures this process's engine children and memory,
 * which the unit thread's other engine tests would share.
 */
const PROCESS_FILES = [
  'test/unit/aws/clients.test.ts',
  'test/unit/db/transactions.test.ts',
  'test/unit/engine/analyser-bounds.test.ts',
];

export default defineConfig({
  test: {
    poolOptions: {
      // Processes for the files with a twin, the infrastructure and the engine bounds: they wait
      // on their twin's I/O, on job polling and on the README walkthrough's sleeps much of the
      // time, so two more than the cores (four against three: the same CPU, 5 % less wall time,
      // farm-bench on this 2-core machine). As many kept as started: with fewer, tinypool (1.1.1)
      // ends an idle shared worker twice and the run fails with an unhandled "Terminating worker
      // thread" though every test passed.
      forks: { maxForks: 4, minForks: 4, isolate: false },
      // One thread for the unit files, beside the forks.
      threads: { isolate: false, maxThreads: 1, minThreads: 1 },
    },
    sequence: { sequencer: SlowFirstSequencer },
    // Bounds generous enough for two loaded CI cores, where the two-stage synthesis of
    // test/infra/stage.test.ts took 20 s of its former 30 and the contract test's replay 280 s of
    // its hook's 300. A test that waits on something bounds that wait itself, saying what.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // How long a worker may take to exit when the pool closes (tinypool's terminateTimeout). At
    // the default 10 s, a fork still closing its twin on a loaded machine failed a run whose
    // every test passed, with an unhandled "Failed to terminate worker".
    teardownTimeout: 60_000,
    env: {
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      // Metric lines only where a twin names their file (LOCAL_METRICS_FILE; it turns them on): no console noise.
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // The suite makes about a thousand API client secrets and exchanges them: at the default
      // cost (2^14, 40 ms of a core each) that was 37 s of its CPU. Each digest names its cost,
      // and test/unit/auth/client-secrets.test.ts checks the default one.
      CLIENT_SECRET_SCRYPT_COST: '10',
    },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: PROCESS_FILES, pool: 'threads' },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: ['test/integration/**/*.test.ts', 'test/infra/**/*.test.ts', ...PROCESS_FILES],
          pool: 'forks',
        },
      },
    ],
  },
});
