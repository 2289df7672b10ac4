/**
 * A twin that stops while a job runs (Ctrl-C, or a death: its executions die with it) resolves
 * that job at its next start, within seconds: the execution runs again from its start, and
 * one that died twice is recorded FAILED 10-1047 saying the runner restarted. Nothing
 * half-done reads as COMPLETED, and the table takes new imports afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WorkerSpec } from '../../../shared/jobs/define-job';
import { importJob } from '../../../shared/data-tables/jobs';
import { loadWorkerHandler, type WorkerFunction } from '../../../infra/local/stepfunctions';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { putObjects, startImport, tableOver, waitForVersion } from '../../support/imports';
import { namedPort } from '../../support/ports';

const dataDir = mkdtempSync(join(tmpdir(), 'dps-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The import worker never answers, as if the process died under it; the others are real. */
async function hangingImports(worker: WorkerSpec): Promise<WorkerFunction> {
  if (worker.name === importJob.worker.name) return () => new Promise(() => undefined);
  return loadWorkerHandler(worker);
}

// Every start keeps the same endpoints, as npm start does: connections store the S3 endpoint,
// and the functions' SDK clients, created once per process, keep theirs.
const s3Port = await namedPort();
const servicePorts = { dynamodb: await namedPort(), kms: await namedPort(), stepFunctions: await namedPort() };
const start = (hang: boolean): Promise<TestTwin> =>
  startTestTwin({
    dataDir,
    s3Port,
    servicePorts,
    buckets: ['landing'],
    retryIntervalMs: 10,
    ...(hang ? { loadWorker: hangingImports } : {}),
  });

describe('a twin restarted while a job runs', () => {
  let tableId = 0;

  it('runs an interrupted import again at its next start: COMPLETED within seconds', async () => {
    const first = await start(true);
    await putObjects(first, 'landing', { 'restart/a.csv': 'id,name\n1,a\n2,b\n' });
    tableId = await tableOver(first.admin, first, 'landing/restart/');
    const versionNumber = await startImport(first.admin, tableId);
    await first.close();

    const restartedAt = Date.now();
    const second = await start(false);
    try {
      expect(second.twin.resumedJobs).toBe(1);
      const version = await waitForVersion(second.admin, tableId, versionNumber);
      expect(version.execution, JSON.stringify(version.execution)).toMatchObject({ status: 'COMPLETED' });
      expect(version.metadata?.row_count).toBe(2);
      expect(Date.now() - restartedAt).toBeLessThan(20_000);
    } finally {
      await second.close();
    }
  });

  it('records an import that died with the twin twice as FAILED 10-1047, and the table takes the next import', async () => {
    const first = await start(true);
    const versionNumber = await startImport(first.admin, tableId);
    await first.close();
    // The restart runs it again, and it dies again.
    await (await start(true)).close();

    const third = await start(false);
    try {
      const response = await third.admin.call('getDataVersion', {
        params: { data_table_id: tableId, version_number: versionNumber },
      });
      expect(response.body.execution).toMatchObject({
        status: 'FAILED',
        error: { code: '10-1047', cause: expect.stringContaining('restarted') },
      });
      const next = await waitForVersion(third.admin, tableId, await startImport(third.admin, tableId));
      expect(next.execution.status).toBe('COMPLETED');
    } finally {
      await third.close();
    }
  });
});
