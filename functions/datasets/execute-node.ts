import { actorOf } from '../../shared/db/actor';
import { idempotentResponse } from '../../shared/db/idempotent-responses';
import { recipeRunJob } from '../../shared/datasets/jobs';
import { readRunStatus } from '../../shared/datasets/response';
import { queueRun } from '../../shared/datasets/run-queue';
import { AppError } from '../../shared/errors/app-error';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { startJob } from '../../shared/jobs/start';
import { assertQuotaAllowsStart } from '../../shared/quota/enforcement';
import { datasetRoutes } from './routes';

/**
 * Queues a run of a recipe node and starts its job. With an Idempotency-Key, a retry (same
 * key, same node and body) gets the first answer, naming the same job, instead of a second
 * run; a retry while the first is still being queued is 20-1034, as a second run would be.
 */
export const handler = httpHandler(datasetRoutes.executeNode, async ({ params, body, principal, idempotencyKey }) => {
  const depth = body.schema_analysis_depth ?? 'SHALLOW';
  // FULL analysis is its own permission, "Analyze recipe schema" (spec 2.7, 5.2).
  if (depth === 'FULL' && !principal.permissions.includes('schema:analyze')) {
    throw new AppError('10-403', { extraDetails: { required_permission: 'schema:analyze' } });
  }
  const { tenantId } = principal;
  const { dataset_id: datasetId, version_number: graphVersion, node_id: nodeId } = params;
  const request = { use_sample: body.use_sample, schema_analysis_depth: depth };
  const { body: answer, replayed } = await idempotentResponse(
    tenantId,
    'RECIPE_NODE_EXECUTE',
    datasetRoutes.executeNode.response.body,
    idempotencyKey === undefined
      ? undefined
      : { key: idempotencyKey, fingerprint: fingerprint({ ...params, ...request }) },
    () => new AppError('20-1034', { params: [nodeId] }),
    async () => {
      await assertQuotaAllowsStart(tenantId);
      const { job, build } = await queueRun(tenantId, actorOf(principal), datasetId, graphVersion, nodeId, request);
      await startJob(recipeRunJob, job, {
        dataset_id: datasetId,
        version_number: graphVersion,
        node_id: nodeId,
        ...request,
        build,
      });
      return readRunStatus(tenantId, datasetId, graphVersion, nodeId);
    },
  );
  const headers: Record<string, string> = replayed ? { 'idempotent-replayed': 'true' } : {};
  return { status: 202, body: answer, headers };
});
