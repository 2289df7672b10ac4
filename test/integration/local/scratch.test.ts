/**
 * Scratch folders across a death of the twin: a worker killed mid-import (kill -9, out of
 * memory) leaves its folder behind; the next start with the same data folder removes it and
 * every other leftover before any job runs, and the resumed job works in a folder of its own
 * that the start leaves alone.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { loadWorkerHandler, type WorkerFunction } from '../../../infra/local/stepfunctions';
import { twinScratchRoot } from '../../../infra/local/scratch';
import { importJob } from '../../../shared/data-tables/jobs';
import type { WorkerSpec } from '../../../shared/jobs/define-job';
import type { JobPulse } from '../../../shared/jobs/pulse';
import { jobWorker } from '../../../shared/job-workers/worker-step';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { putObjects, startImport, tableOver } from '../../support/imports';
import { namedPort } from '../../support/ports';

const dataDir = mkdtempSync(join(tmpdir(), 'dps-scratch-'));
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(twinScratchRoot(dataDir), { recursive: true, force: true });
});

/** Import steps caught mid-work: their scratch folder holds a partial download, and they never end. */
const caught: { jobId: string; workDir: string; pulse: JobPulse }[] = [];
const stuckImport = jobWorker(importJob, { stage: 'READING', percent: 0 }, async ({ job, pulse, workDir }) => {
  writeFileSync(join(workDir, 'partial.csv'), 'id,name\n1,a\n');
  caught.push({ jobId: job.job_id, workDir, pulse });
  return new Promise<never>(() => undefined);
});
async function stuckImports(worker: WorkerSpec): Promise<WorkerFunction> {
  return worker.name === importJob.worker.name ? stuckImport : loadWorkerHandler(worker);
}

const s3Port = await namedPort();
const servicePorts = { dynamodb: await namedPort(), kms: await namedPort(), stepFunctions: await namedPort() };
const start = (): Promise<TestTwin> =>
  startTestTwin({ dataDir, s3Port, servicePorts, buckets: ['landing'], retryIntervalMs: 10, loadWorker: stuckImports });

it("removes at start the folders a dead twin's workers left, and not the resumed job's new one", async () => {
  const first = await start();
  const root = first.twin.scratchRoot;
  expect(root).toBe(twinScratchRoot(dataDir));
  await putObjects(first, 'landing', { 'scratch/a.csv': 'id,name\n1,a\n' });
  await startImport(first.admin, await tableOver(first.admin, first, 'landing/scratch/'));
  await vi.waitFor(() => expect(caught).toHaveLength(1), { timeout: 15_000 });
  const [dead] = caught;
  expect(dead!.workDir.startsWith(join(root, `${dead!.jobId}-`))).toBe(true);
  // A folder of a job of some earlier run, and the worker's: the process dies without removing them.
  const older = join(root, 'export-direct-00000000-0000-4000-8000-000000000000-x1y2z3');
  mkdirSync(join(older, 'out'), { recursive: true });
  writeFileSync(join(older, 'out', 'data.parquet'), 'partial');
  await first.close();
  dead!.pulse.stop();
  expect(existsSync(dead!.workDir)).toBe(true);

  const second = await start();
  try {
    expect(second.twin.resumedJobs).toBe(1);
    expect(existsSync(older)).toBe(false);
    expect(existsSync(dead!.workDir)).toBe(false);
    await vi.waitFor(() => expect(caught).toHaveLength(2), { timeout: 15_000 });
    const resumed = caught[1]!;
    expect(resumed.jobId).toBe(dead!.jobId);
    expect(readdirSync(root)).toEqual([resumed.workDir.slice(root.length + 1)]);
    expect(readdirSync(resumed.workDir)).toEqual(['partial.csv']);
    resumed.pulse.stop();
  } finally {
    await second.close();
  }
});
