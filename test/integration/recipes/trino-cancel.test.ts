/**
 * Cancelling a trino-sql run stops its Athena query: the run ends ABORTED (10-444), the
 * worker's StopQueryExecution leaves the query CANCELLED in the stand-in, and no output, Athena
 * file or Glue table of the run is left. The twin's Athena holds each query QUEUED for a minute here, as a busy Athena would.
 */
import { AthenaClient, GetQueryExecutionCommand, ListQueryExecutionsCommand } from '@aws-sdk/client-athena';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_BUCKET } from '../../../infra/local/twin';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { eventually, STOPS_WITHIN_MS } from '../jobs/cancel-support';
import { importedTable, nodeAt, tableRecipeGraph, waitForRun } from '../datasets/run-fixtures';
import { createRecipe } from './fixtures';
import { localS3Client } from '../../support/local-s3';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetTablesCommand, GlueClient } from '@aws-sdk/client-glue';
import { athenaDatabase } from '../../../shared/engine/athena/run-prefix';

const TENANT = 'trino-cancel';
let env: TestTwin;
let api: ApiClient;
let athena: AthenaClient;

beforeAll(async () => {
  env = await startTestTwin({
    buckets: ['landing'],
    athenaQueueMs: 60_000,
    environment: { JOB_INACTIVITY_SECONDS: '8' },
  });
  api = await env.clientFor(TENANT, ['admin']);
  await env.setFeature('athena', TENANT, 'on');
  athena = new AthenaClient({
    endpoint: process.env.AWS_ENDPOINT_URL_ATHENA,
    region: 'us-east-1',
    credentials: LOCAL_S3_CREDENTIALS,
  });
});
afterAll(async () => {
  athena?.destroy();
  await env?.close();
});

describe('cancelling a trino-sql run', () => {
  it('stops its Athena query: the run ABORTED, the query CANCELLED, no output left', async () => {
    const tableId = await importedTable(api, env, 'id,amount\n1,5\n2,7\n');
    const recipe = await createRecipe(api, {
      language: 'trino-sql',
      recipe_version: { code: 'SELECT id FROM orders' },
    });
    const graph = await tableRecipeGraph(api, { tableId, recipeId: recipe.id, alias: 'orders' });
    const at = nodeAt(graph, graph.recipeNode);
    const started = await api.call('executeDatasetNode', { params: at, body: { use_sample: false } });
    expect(started.status, started.text).toBe(202);

    const workgroup = `${process.env.ATHENA_WORKGROUP_PREFIX}${TENANT}`;
    let queryId: string | undefined;
    await eventually(
      async () => {
        const listed = await athena
          .send(new ListQueryExecutionsCommand({ WorkGroup: workgroup }))
          .catch(() => undefined);
        queryId = listed?.QueryExecutionIds?.[0];
        return queryId !== undefined;
      },
      30_000,
      'the run started its query',
    );
    const cancelled = await api.call('cancelDatasetNodeRun', { params: at });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.execution).toMatchObject({ status: 'ABORTED', error: { code: '10-444' } });

    await eventually(
      async () => {
        const { QueryExecution } = await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: queryId }));
        return QueryExecution?.Status?.State === 'CANCELLED';
      },
      STOPS_WITHIN_MS + 8_000,
      'the query was stopped',
    );
    const status = await waitForRun(api, graph, graph.recipeNode);
    expect(status).toMatchObject({ run_state: 'ABORTED', execution: { status: 'ABORTED' }, metadata: null });
    const s3 = localS3Client(env.twin.s3.endpoint);
    try {
      // The stopped worker removes what it wrote as it lets go, which may end just after the run reads ABORTED.
      await eventually(
        async () => {
          const listing = await s3.send(
            new ListObjectsV2Command({ Bucket: DATA_BUCKET, Prefix: `${TENANT}/datasets/${graph.datasetId}/` }),
          );
          return (listing.Contents ?? []).length === 0;
        },
        STOPS_WITHIN_MS,
        'no output left',
      );
    } finally {
      s3.destroy();
    }
    const glue = new GlueClient({
      endpoint: process.env.AWS_ENDPOINT_URL_GLUE,
      region: 'us-east-1',
      credentials: LOCAL_S3_CREDENTIALS,
    });
    try {
      const { TableList } = await glue.send(new GetTablesCommand({ DatabaseName: athenaDatabase(TENANT) }));
      expect((TableList ?? []).map((table) => table.Name)).toEqual([]);
    } finally {
      glue.destroy();
    }
  });
});
