/**
 * The order the suite's files start in: the longest-running first, then vitest's own order
 * (those that failed last time, then the longest last time, else the largest). A fresh clone
 * (CI) has no timings from a last run, and there the largest files are not the slowest: the
 * bench smoke, a 60 s file of 60 lines, started last and ran alone for its last 40 s.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files that run for half a minute or more on a quiet 2-core machine, slowest first. */
const SLOW_FIRST = [
  // A corpus of over 2,500 requests and their answers checked against the document: a minute of CPU alone.
  'test/integration/api/contract.test.ts',
  'test/integration/bench/smoke.test.ts',
  'test/integration/readme-walkthrough.test.ts',
  'test/integration/api/fuzz.test.ts',
  'test/integration/jobs/cancel.test.ts',
  'test/integration/jobs/fargate.test.ts',
  'test/integration/recipes/trino-runs.test.ts',
  'test/unit/engine/analyser-bounds.test.ts',
  'test/integration/local/start.test.ts',
];

/** Vitest's sequencer, with the files of SLOW_FIRST moved to the front in that order. */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const at = SLOW_FIRST.findIndex((slow) => file.moduleId.endsWith(`/${slow}`));
      return at < 0 ? SLOW_FIRST.length : at;
    };
    // Array.prototype.sort is stable: the other files keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
