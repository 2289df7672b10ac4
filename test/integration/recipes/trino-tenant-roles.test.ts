/**
 * The per-tenant roles of trino-sql runs on the twin (docs/decisions.md, "Per-tenant roles of
 * trino-sql runs"): a tenant's first run makes its role under the stage's path with the
 * stage's boundary; with that role's session, another tenant's workgroup and database are
 * AccessDenied; and a run whose input manifest is made to list another tenant's file (as a
 * fault or tampering would) is refused by the query's own role, failing 10-403, although every
 * name in it is the tenant's own. The twin's Athena holds each query QUEUED for a few seconds
 * here, which is when the manifest is rewritten.
 */
import {
  AthenaClient,
  GetWorkGroupCommand,
  ListQueryExecutionsCommand,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { GetTableCommand, GlueClient } from '@aws-sdk/client-glue';
import { GetRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_S3_CREDENTIALS } from '../../../infra/local/s3';
import { DATA_BUCKET } from '../../../infra/local/twin';
import { athenaDatabase } from '../../../shared/engine/athena/run-prefix';
import { tenantRoleName } from '../../../shared/engine/athena/tenant-policy';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { localS3Client } from '../../support/local-s3';
import { eventually } from '../jobs/cancel-support';
import { importedTable, nodeAt, tableRecipeGraph, waitForRun } from '../datasets/run-fixtures';
import { createRecipe } from './fixtures';

const A = 'roles-a';
const B = 'roles-b';
const REGION = 'us-east-1';
let env: TestTwin;
let apiA: ApiClient;
let apiB: ApiClient;

beforeAll(async () => {
  env = await startTestTwin({ buckets: ['landing'], athenaQueueMs: 3000 });
  [apiA, apiB] = await Promise.all([env.clientFor(A, ['admin']), env.clientFor(B, ['admin'])]);
  await env.setFeature('athena', [A, B], 'on');
});
afterAll(() => env?.close());

const service = { region: REGION, credentials: LOCAL_S3_CREDENTIALS };
const prefix = () => process.env.ATHENA_WORKGROUP_PREFIX!;

/** A run of a trino-sql node of A over a table of A: its dataset and node. */
async function trinoNodeOfA(): Promise<{ datasetId: number; nodeId: number }> {
  const tableId = await importedTable(apiA, env, 'id,amount\n1,5\n2,7\n');
  const recipe = await createRecipe(apiA, { language: 'trino-sql', recipe_version: { code: 'SELECT id FROM orders' } });
  const graph = await tableRecipeGraph(apiA, { tableId, recipeId: recipe.id, alias: 'orders' });
  return { datasetId: graph.datasetId, nodeId: graph.recipeNode };
}

describe('the per-tenant role of trino-sql runs', () => {
  it('is refused another tenant’s file that a run’s manifest lists: the run fails 10-403', async () => {
    // B's data: a Parquet file under B's prefix.
    await importedTable(apiB, env, 'id,secret\n1,b-only\n');
    const s3 = localS3Client(env.twin.s3.endpoint);
    try {
      const listedB = await s3.send(new ListObjectsV2Command({ Bucket: DATA_BUCKET, Prefix: `${B}/` }));
      const fileOfB = (listedB.Contents ?? []).find((object) => object.Key?.endsWith('/data.parquet'))?.Key;
      expect(fileOfB).toBeDefined();

      const { datasetId, nodeId } = await trinoNodeOfA();
      const at = nodeAt({ datasetId }, nodeId);
      const started = await apiA.call('executeDatasetNode', { params: at, body: { use_sample: false } });
      expect(started.status, started.text).toBe(202);
      // While the query waits in Athena's queue, its input manifest is made to list B's file.
      const athena = new AthenaClient(service);
      try {
        await eventually(
          async () =>
            (
              (await athena.send(new ListQueryExecutionsCommand({ WorkGroup: `${prefix()}${A}` }))).QueryExecutionIds ??
              []
            ).length > 0,
          30_000,
          'the run handed its query over',
        );
      } finally {
        athena.destroy();
      }
      const listedA = await s3.send(
        new ListObjectsV2Command({ Bucket: DATA_BUCKET, Prefix: `${A}/datasets/${datasetId}/` }),
      );
      const manifest = (listedA.Contents ?? []).find((object) => object.Key?.endsWith('/symlink.txt'))?.Key;
      expect(manifest).toBeDefined();
      await s3.send(
        new PutObjectCommand({ Bucket: DATA_BUCKET, Key: manifest, Body: `s3://${DATA_BUCKET}/${fileOfB}\n` }),
      );

      const status = await waitForRun(apiA, { datasetId }, nodeId);
      expect(status.execution).toMatchObject({ status: 'FAILED', error: { code: '10-403' } });
      expect(JSON.stringify(status)).not.toContain(B);
    } finally {
      s3.destroy();
    }

    // The run made A's role under the stage's path, with the stage's boundary.
    const iam = new IAMClient(service);
    try {
      const { Role } = await iam.send(new GetRoleCommand({ RoleName: tenantRoleName(prefix(), A) }));
      expect(Role).toMatchObject({
        Path: `/${prefix()}tenant-roles/`,
        PermissionsBoundary: { PermissionsBoundaryArn: process.env.ATHENA_ROLE_BOUNDARY_ARN },
      });
    } finally {
      iam.destroy();
    }
  });

  it('reaches its own workgroup and database only: another tenant’s are AccessDenied', async () => {
    // A's role exists since its run above; the service's roles may assume it.
    const sts = new STSClient(service);
    const roleArn = `arn:aws:iam::000000000000:role/${prefix()}tenant-roles/${tenantRoleName(prefix(), A)}`;
    const { Credentials } = await sts.send(new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: 'test' }));
    sts.destroy();
    const credentials = {
      accessKeyId: Credentials!.AccessKeyId!,
      secretAccessKey: Credentials!.SecretAccessKey!,
      sessionToken: Credentials!.SessionToken,
    };
    const athena = new AthenaClient({ region: REGION, credentials });
    const glue = new GlueClient({ region: REGION, credentials });
    try {
      const own = await athena.send(new GetWorkGroupCommand({ WorkGroup: `${prefix()}${A}` }));
      expect(own.WorkGroup?.Name).toBe(`${prefix()}${A}`);
      await expect(
        athena.send(
          new StartQueryExecutionCommand({
            WorkGroup: `${prefix()}${B}`,
            QueryString: 'SELECT 1',
            QueryExecutionContext: { Database: athenaDatabase(B) },
          }),
        ),
      ).rejects.toMatchObject({ name: 'AccessDeniedException' });
      await expect(
        glue.send(new GetTableCommand({ DatabaseName: athenaDatabase(B), Name: 'any' })),
      ).rejects.toMatchObject({ name: 'AccessDeniedException' });
    } finally {
      athena.destroy();
      glue.destroy();
    }
  });
});
