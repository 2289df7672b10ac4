import { idempotentResponse } from '../../shared/db/idempotent-responses';
import { requestedNodeRun, startNodeRun } from '../../shared/datasets/node-run-start';
import { AppError } from '../../shared/errors/app-error';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { requestedLaunch } from '../../shared/jobs/launch';
import { datasetRoutes } from './routes';

/**
 * Queues a run of a recipe node and starts its job. With an Idempotency-Key, a retry (same
 * key, same node and body) gets the first answer, naming the same job, instead of a second
 * run; a retry while the first is still being queued is 20-1034, as a second run would be.
 */
export const handler = httpHandler(datasetRoutes.executeNode, async ({ params, body, principal, idempotencyKey }) => {
  const request = requestedNodeRun(principal, body);
  const launch = requestedLaunch(principal, body.launch);
  const { node_id: nodeId } = params;
  const { body: answer, replayed } = await idempotentResponse(
    principal.tenantId,
    'RECIPE_NODE_EXECUTE',
    datasetRoutes.executeNode.response.body,
    idempotencyKey === undefined
      ? undefined
      : { key: idempotencyKey, fingerprint: fingerprint({ ...params, ...request, launch }) },
    () => new AppError('20-1034', { params: [nodeId] }),
    () => startNodeRun(principal, params, request, launch),
  );
  const headers: Record<string, string> = replayed ? { 'idempotent-replayed': 'true' } : {};
  return { status: 202, body: answer, headers };
});
