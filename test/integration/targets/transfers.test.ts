import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../../shared/aws/clients';
import { config } from '../../../shared/config';
import { keys } from '../../../shared/db/keys';
import { claimTargetForExport, releaseTarget, targetForExport, transfersOf } from '../../../shared/targets/store';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { createTarget, sentBack, type Target } from './fixtures';

/**
 * Exports claim the target they write to (shared/targets/store.ts); while a claim stands the
 * target cannot be updated or deleted (30-6005). The export job is another module's: its
 * claims and releases are made here through the store, as it makes them.
 */
let env: TestTwin;
let api: ApiClient;
const TENANT = 'targets-transfers';

beforeAll(async () => {
  env = await startTestTwin();
  api = await env.clientFor(TENANT, ['editor']);
});
afterAll(() => env?.close());

const s3 = () => env.twin.s3.endpoint;
const read = (id: number) => api.call('getTarget', { params: { target_id: id } });
const update = (target: Target, changes: Record<string, unknown>) =>
  api.call('updateTarget', { params: { target_id: target.id }, body: sentBack(target, changes) });
const remove = (id: number) => api.call('deleteTarget', { params: { target_id: id } });
const claim = (targetId: number, jobId: string, seenLockVersion?: number) =>
  claimTargetForExport(TENANT, targetId, jobId, seenLockVersion === undefined ? {} : { seenLockVersion });
/** The claim's answer: undefined when it holds, the refusal's code otherwise. */
const tryClaim = (targetId: number, jobId: string, seenLockVersion?: number) =>
  claim(targetId, jobId, seenLockVersion).then(
    () => undefined,
    (error: unknown) => (error as { code?: string }).code ?? String(error),
  );
const headExists = async (targetId: number) =>
  (
    await dynamoDocumentClient().send(
      new GetCommand({
        TableName: config.tableName,
        Key: keys.childrenHead(TENANT, 'TARGET', targetId),
        ConsistentRead: true,
      }),
    )
  ).Item !== undefined;

describe('a target written to by an export', () => {
  it('cannot be updated or deleted (30-6005) until the export releases it', async () => {
    const { target } = await createTarget(api, s3(), 'table');
    await claim(target.id, 'job-a', target.lock_version);
    expect(await transfersOf(TENANT, target.id)).toEqual(['job-a']);
    const updating = await update(target, { description: 'changed' });
    expect(updating.status).toBe(400);
    expect(updating.problem).toMatchObject({
      code: '30-6005',
      detail: 'Target cannot be deleted or updated while a transfer is in progress',
    });
    expect((await remove(target.id)).problem.code).toBe('30-6005');
    expect((await read(target.id)).json).toEqual(target);
    await releaseTarget(TENANT, target.id, 'job-a');
    expect(await transfersOf(TENANT, target.id)).toEqual([]);
    expect((await update(target, { description: 'changed' })).status).toBe(200);
    expect((await remove(target.id)).status).toBe(204);
    // The head item went with the target, and a late release does not bring it back.
    await releaseTarget(TENANT, target.id, 'job-a');
    expect(await headExists(target.id)).toBe(false);
  });

  it('stays claimed until every export has released it; a repeated claim or release changes nothing', async () => {
    const { target } = await createTarget(api, s3(), 'bucket');
    await claim(target.id, 'job-1');
    await claim(target.id, 'job-1');
    await claim(target.id, 'job-2');
    expect((await transfersOf(TENANT, target.id)).sort()).toEqual(['job-1', 'job-2']);
    await releaseTarget(TENANT, target.id, 'job-1');
    await releaseTarget(TENANT, target.id, 'job-1');
    expect((await remove(target.id)).problem.code).toBe('30-6005');
    await releaseTarget(TENANT, target.id, 'job-2');
    expect((await remove(target.id)).status).toBe(204);
  });

  it('claims only a target that exists (30-6002) and is as the export read it (10-1006)', async () => {
    expect(await tryClaim(777_777, 'job-x')).toBe('30-6002');
    const { target } = await createTarget(api, s3(), 'pricing');
    expect((await update(target, { description: 'moved on' })).status).toBe(200);
    expect(await tryClaim(target.id, 'job-y', target.lock_version)).toBe('10-1006');
    expect(await transfersOf(TENANT, target.id)).toEqual([]);
  });
});

describe('races between exports and edits', () => {
  it('lets either the delete or the claims win, never both', async () => {
    for (let round = 0; round < 6; round += 1) {
      const { target } = await createTarget(api, s3(), 'table');
      const [deletion, ...claims] = await Promise.all([
        remove(target.id),
        ...['j1', 'j2', 'j3'].map((job) => tryClaim(target.id, job)),
      ]);
      if (deletion.status === 204) {
        expect(claims).toEqual(['30-6002', '30-6002', '30-6002']);
        expect(await headExists(target.id)).toBe(false);
      } else {
        expect(deletion.problem.code).toBe('30-6005');
        // The target was never gone, so every claim holds.
        expect(claims).toEqual([undefined, undefined, undefined]);
        expect(await transfersOf(TENANT, target.id)).toHaveLength(3);
        expect((await read(target.id)).status).toBe(200);
      }
    }
  });

  it('lets exactly one of an update and a claim made against the same lock_version win', async () => {
    for (let round = 0; round < 6; round += 1) {
      const { target } = await createTarget(api, s3(), 'bucket');
      const [updating, claimed] = await Promise.all([
        update(target, { description: `round ${round}` }),
        tryClaim(target.id, 'job', target.lock_version),
      ]);
      if (updating.status === 200) {
        expect(claimed).toBe('10-1006');
        expect(await transfersOf(TENANT, target.id)).toEqual([]);
      } else {
        expect(updating.problem.code).toBe('30-6005');
        expect(claimed).toBeUndefined();
        expect((await read(target.id)).body.lock_version).toBe(0);
      }
    }
  });
});

describe('targetForExport', () => {
  it('answers the target with its connection, checking the connection again', async () => {
    const { connection, target } = await createTarget(api, s3(), 'table');
    const found = await targetForExport(TENANT, target.id);
    expect(found.target.data).toMatchObject({
      type: 'table',
      table_name: target.type === 'table' ? target.table_name : '',
    });
    expect(found.connection.id).toBe(connection.id);
    const patched = await api.call('mergeConnection', {
      params: { connection_id: connection.id },
      body: { id: connection.id, lock_version: connection.lock_version, type: 'warehouse', write: false },
    });
    expect(patched.status, patched.text).toBe(200);
    await expect(targetForExport(TENANT, target.id)).rejects.toMatchObject({ code: '30-5002' });
    await expect(targetForExport(TENANT, 123_456)).rejects.toMatchObject({ code: '30-6002' });
  });
});
